package dev.keel.etl.tabular;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Optional;

/**
 * A source's text in its {@code source.encoding}, decoded so that bytes that are not text in it
 * cost only the line they are on: each such stretch becomes U+FFFD and a {@link Flaw} of its line,
 * and decoding goes on (a plain {@code InputStreamReader} throws, and a reader reading ahead loses
 * every record after the buffer that held the bad byte). A NUL character is a flaw too (UTF-16 text
 * read as UTF-8 is ASCII with a NUL after every character), and a leading byte order mark is
 * dropped (a UTF-8 BOM would otherwise start the first column's name). Lines are counted as Commons
 * CSV counts them ({@code \r\n}, {@code \r} or {@code \n} ends one), from 1.
 */
public final class SourceText extends Reader {
  /**
   * A line holding bytes that are not text in the encoding; {@code what} says which bytes and what
   * to do.
   */
  public record Flaw(long line, String what) {}

  private static final char BOM = '\uFEFF';
  private static final int BUFFER = 1 << 16;

  private final InputStream in;
  private final Charset charset;
  private final String encodingAsWritten;
  private final CharsetDecoder decoder;
  private final ByteBuffer bytes = ByteBuffer.allocate(BUFFER).flip();

  /** Decoded characters not yet handed out, in read mode. */
  private final CharBuffer chars = CharBuffer.allocate(BUFFER).flip();

  private final ArrayDeque<Flaw> flaws = new ArrayDeque<>();
  private boolean eof;
  private boolean done;
  private boolean atStart = true;
  private long line = 1;
  private boolean lastWasCr;
  private long bytesRead;

  /** Characters scanned in earlier fills. */
  private long charsSeen;

  /**
   * @param encodingAsWritten {@code source.encoding} as the user wrote it (empty: the default), for
   *     the hint in a flaw's text
   */
  public SourceText(InputStream in, Charset charset, String encodingAsWritten) {
    this.in = in;
    this.charset = charset;
    this.encodingAsWritten = encodingAsWritten == null ? "" : encodingAsWritten.strip();
    this.decoder =
        charset
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
  }

  public static SourceText open(Path file, Charset charset, String encodingAsWritten)
      throws IOException {
    return new SourceText(Files.newInputStream(file), charset, encodingAsWritten);
  }

  /**
   * The first flaw on a line up to {@code lastLine}, dropping every flaw up to it: called once per
   * record with the record's last line, in order, it names the record's own flaw (the parser has
   * read the record, so its flaws are known).
   */
  public Optional<Flaw> flawThrough(long lastLine) {
    Flaw first = null;
    while (!flaws.isEmpty() && flaws.peekFirst().line() <= lastLine) {
      Flaw f = flaws.pollFirst();
      first = first == null ? f : first;
    }
    return Optional.ofNullable(first);
  }

  /** Bytes read from the input so far. */
  public long bytesRead() {
    return bytesRead;
  }

  @Override
  public int read(char[] cbuf, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (!chars.hasRemaining()) {
      if (done) {
        return -1;
      }
      fill();
    }
    int n = Math.min(len, chars.remaining());
    chars.get(cbuf, off, n);
    return n;
  }

  /** Decodes the next characters into {@link #chars} (at least one, or sets {@link #done}). */
  private void fill() throws IOException {
    chars.clear();
    int scanned = 0;
    boolean needBytes = bytes.remaining() < 16;
    while (chars.position() == 0 && !done) {
      if (needBytes && !eof) {
        bytes.compact();
        int r = in.read(bytes.array(), bytes.position(), bytes.remaining());
        if (r < 0) {
          eof = true;
        } else {
          bytes.position(bytes.position() + r);
          bytesRead += r;
        }
        bytes.flip();
      }
      CoderResult cr = decoder.decode(bytes, chars, eof);
      scanned = scan(scanned);
      needBytes = cr.isUnderflow();
      if (cr.isError()) {
        if (!chars.hasRemaining()) {
          break; // no room for the replacement: the decoder reports the same bytes again next time
        }
        flaw(notText(bytes, cr.length(), bytesRead - bytes.remaining() == 0));
        bytes.position(bytes.position() + cr.length());
        chars.put('\uFFFD');
        scanned++;
      } else if (cr.isUnderflow() && eof) {
        decoder.flush(chars);
        scanned = scan(scanned);
        done = true;
      }
    }
    chars.flip();
    if (atStart && chars.hasRemaining()) {
      atStart = false;
      if (chars.get(0) == BOM) {
        chars.position(1);
      }
    }
  }

  /**
   * Counts the line breaks of the characters decoded since {@code from}, and flags NULs; returns
   * the new end.
   */
  private int scan(int from) {
    int end = chars.position();
    for (int i = from; i < end; i++) {
      char c = chars.get(i);
      if (c == '\r') {
        line++;
        lastWasCr = true;
        continue;
      }
      if (c == '\n') {
        if (!lastWasCr) {
          line++;
        }
      } else if (c == 0) {
        // ASCII in UTF-16: a NUL before each character (big-endian) or after it (little-endian)
        flaw(
            "a NUL character, as in UTF-16 text read as "
                + charset.name()
                + hint(charsSeen + i == 0 ? "utf-16be" : "utf-16le"));
      }
      lastWasCr = false;
    }
    charsSeen += end - from;
    return end;
  }

  private void flaw(String what) {
    if (flaws.isEmpty() || flaws.peekLast().line() != line) {
      flaws.addLast(new Flaw(line, what));
    }
  }

  /** The {@code length} bytes at {@code in}'s position, described with what to do about them. */
  private String notText(ByteBuffer in, int length, boolean atFileStart) {
    int p = in.position();
    boolean utf16Bom =
        atFileStart
            && in.remaining() >= 2
            && (((in.get(p) & 0xFF) == 0xFF && (in.get(p + 1) & 0xFF) == 0xFE)
                || ((in.get(p) & 0xFF) == 0xFE && (in.get(p + 1) & 0xFF) == 0xFF));
    int shown = utf16Bom ? 2 : Math.min(length, 4);
    StringBuilder sb =
        new StringBuilder("not valid ")
            .append(charset.name())
            .append(" (byte")
            .append(shown > 1 ? "s" : "");
    for (int i = 0; i < shown && p + i < in.limit(); i++) {
      sb.append(String.format(Locale.ROOT, " 0x%02X", in.get(p + i) & 0xFF));
    }
    sb.append(utf16Bom ? ", a UTF-16 byte order mark)" : ")");
    return sb.append(hint(utf16Bom ? "utf-16" : "latin-1")).toString();
  }

  /** What to do: name the file's encoding, e.g. {@code example}; or check the one named. */
  private String hint(String example) {
    if (!encodingAsWritten.isEmpty()) {
      return "; check source.encoding '" + encodingAsWritten + "'";
    }
    return "; set source.encoding to the file's encoding, e.g. " + example;
  }

  /** The first flaw of a file, reading at most about {@code maxBytes} of it. */
  public static Optional<Flaw> firstFlaw(
      Path file, Charset charset, String encodingAsWritten, long maxBytes) throws IOException {
    try (SourceText t = open(file, charset, encodingAsWritten)) {
      char[] buf = new char[BUFFER];
      while (t.flaws.isEmpty() && t.bytesRead < maxBytes && t.read(buf, 0, buf.length) >= 0) {
        // read on
      }
      return Optional.ofNullable(t.flaws.peekFirst());
    }
  }

  /**
   * A text value of a binary format (a Parquet BINARY column) in {@code charset}; empty, with the
   * reason in {@code why[0]}, when its bytes are not text in it.
   */
  public static Optional<String> decode(
      byte[] value, Charset charset, String encodingAsWritten, String[] why) {
    SourceText t = new SourceText(InputStream.nullInputStream(), charset, encodingAsWritten);
    ByteBuffer in = ByteBuffer.wrap(value);
    CharBuffer out = CharBuffer.allocate(value.length * 2 + 2);
    CoderResult cr = t.decoder.decode(in, out, true);
    if (cr.isError()) {
      why[0] = t.notText(in, cr.length(), in.position() == 0);
      return Optional.empty();
    }
    t.decoder.flush(out);
    String s = out.flip().toString();
    return Optional.of(!s.isEmpty() && s.charAt(0) == BOM ? s.substring(1) : s);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
