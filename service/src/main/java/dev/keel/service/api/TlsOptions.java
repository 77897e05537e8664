package dev.keel.service.api;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The certificate and private key the API serves HTTPS with: PEM files as operators have them (a
 * certificate chain, leaf first, as certbot's {@code fullchain.pem}; an unencrypted key in PKCS#8,
 * PKCS#1 RSA or SEC1 EC form). Micronaut's SSL support serves them; this class reads them first
 * with the JDK so that a wrong file, an expired certificate or a key of another certificate stops
 * the start with one line naming the file, instead of a server whose every handshake fails.
 */
public final class TlsOptions {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  private final Path certificate;
  private final Path key;

  private TlsOptions(Path certificate, Path key) {
    this.certificate = certificate;
    this.key = key;
  }

  /** Plain HTTP. */
  public static TlsOptions none() {
    return new TlsOptions(null, null);
  }

  /**
   * HTTPS with the certificate chain in {@code certificate} and its private key in {@code key}.
   *
   * @throws IllegalArgumentException one line naming the file and what is wrong with it
   */
  public static TlsOptions pem(Path certificate, Path key) {
    List<X509Certificate> chain = certificates(certificate);
    String algorithm = chain.get(0).getPublicKey().getAlgorithm();
    if (!algorithm.equals("RSA")
        && !algorithm.equals("EC")) { // what Micronaut's PEM reader and browsers take
      throw new IllegalArgumentException(
          "--tls-cert "
              + certificate
              + ": the certificate has an "
              + algorithm
              + " key; Keel serves RSA and EC (ECDSA) certificates");
    }
    PrivateKey privateKey = privateKey(key, chain.get(0));
    if (!pairs(privateKey, chain.get(0).getPublicKey())) {
      throw new IllegalArgumentException(
          "--tls-key "
              + key
              + " is not the private key of the certificate in --tls-cert "
              + certificate
              + " ("
              + chain.get(0).getSubjectX500Principal().getName()
              + ")");
    }
    return new TlsOptions(certificate.toAbsolutePath(), key.toAbsolutePath());
  }

  public boolean enabled() {
    return certificate != null;
  }

  /**
   * Micronaut's settings for HTTPS only (no plain HTTP port) on {@code port}; none for plain HTTP.
   */
  Map<String, Object> serverProperties(int port) {
    if (!enabled()) {
      return Map.of();
    }
    return Map.of(
        "micronaut.server.ssl.enabled",
        true,
        "micronaut.server.ssl.port",
        port,
        "micronaut.server.ssl.key-store.certificate-path",
        "file:" + certificate,
        "micronaut.server.ssl.key-store.key-path",
        "file:" + key);
  }

  @Override
  public String toString() {
    return enabled() ? "--tls-cert " + certificate + " --tls-key " + key : "plain HTTP";
  }

  private static List<X509Certificate> certificates(Path file) {
    List<X509Certificate> chain = new ArrayList<>();
    try {
      CertificateFactory x509 = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(file, "--tls-cert")) {
        if (b.label().equals("CERTIFICATE") || b.label().equals("X509 CERTIFICATE")) {
          chain.add(
              (X509Certificate)
                  x509.generateCertificate(new ByteArrayInputStream(b.der(file, "--tls-cert"))));
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "--tls-cert " + file + ": not a readable X.509 certificate (" + oneLine(e) + ")");
    }
    if (chain.isEmpty()) {
      throw new IllegalArgumentException(
          "--tls-cert "
              + file
              + ": no '-----BEGIN CERTIFICATE-----' block; give the"
              + " certificate chain as PEM (e.g. certbot's fullchain.pem)");
    }
    try {
      chain.get(0).checkValidity();
    } catch (CertificateExpiredException e) {
      throw new IllegalArgumentException(
          "--tls-cert "
              + file
              + ": the certificate expired on "
              + chain.get(0).getNotAfter().toInstant()
              + "; renew it");
    } catch (CertificateNotYetValidException e) {
      throw new IllegalArgumentException(
          "--tls-cert "
              + file
              + ": the certificate is valid only from "
              + chain.get(0).getNotBefore().toInstant());
    }
    return chain;
  }

  private static PrivateKey privateKey(Path file, X509Certificate certificate) {
    Block block =
        blocks(file, "--tls-key").stream()
            .filter(b -> b.label().endsWith("PRIVATE KEY"))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "--tls-key "
                            + file
                            + ": no '-----BEGIN PRIVATE KEY-----'"
                            + " block; give the certificate's private key as PEM"));
    if (block.label().startsWith("ENCRYPTED") || block.body().contains("ENCRYPTED")) {
      throw new IllegalArgumentException(
          "--tls-key "
              + file
              + ": the key is encrypted; give it unencrypted, readable"
              + " only by the user keel runs as (openssl pkey -in "
              + file
              + " -out key.pem)");
    }
    byte[] der = block.der(file, "--tls-key");
    PublicKey publicKey = certificate.getPublicKey();
    // PKCS#1 (RSA PRIVATE KEY) and SEC1 (EC PRIVATE KEY) keys are PKCS#8's inner key without the
    // algorithm, which is the one of the certificate's public key
    byte[] pkcs8 =
        block.label().equals("PRIVATE KEY") ? der : pkcs8(algorithmIdentifier(publicKey), der);
    try {
      return KeyFactory.getInstance(publicKey.getAlgorithm())
          .generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--tls-key "
              + file
              + ": not an "
              + publicKey.getAlgorithm()
              + " private key like the certificate's ("
              + oneLine(e)
              + ")");
    }
  }

  /** Whether {@code key} signs what {@code publicKey} verifies. */
  private static boolean pairs(PrivateKey key, PublicKey publicKey) {
    if (key instanceof RSAPrivateKey rsa && publicKey instanceof RSAPublicKey pub) {
      return rsa.getModulus().equals(pub.getModulus());
    }
    if (!key.getAlgorithm().equals("EC")) {
      return false;
    }
    try {
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature sign = Signature.getInstance("SHA256withECDSA");
      sign.initSign(key);
      sign.update(challenge);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance("SHA256withECDSA");
      verify.initVerify(publicKey);
      verify.update(challenge);
      return verify.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static String oneLine(Exception e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getMessage().replaceAll("\\s+", " ").strip();
  }

  private static List<Block> blocks(Path file, String option) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(option + " " + file + ": no such file");
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          option + " " + file + ": not a PEM file (binary content; convert DER with openssl)");
    } catch (IOException e) {
      throw new IllegalArgumentException(
          option + " " + file + ": cannot read it (" + oneLine(e) + ")");
    }
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      out.add(new Block(m.group(1), m.group(2)));
    }
    return out;
  }

  /** One PEM block: its label and its base64 body (RFC 7468). */
  private record Block(String label, String body) {
    byte[] der(Path file, String option) {
      try {
        return Base64.getMimeDecoder().decode(body);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            option + " " + file + ": the " + label + " block is not base64");
      }
    }
  }

  /** The AlgorithmIdentifier of an X.509 SubjectPublicKeyInfo: its first element. */
  private static byte[] algorithmIdentifier(PublicKey publicKey) {
    byte[] spki = publicKey.getEncoded();
    int outer = headerLength(spki, 0);
    int inner = outer + headerLength(spki, outer) + contentLength(spki, outer);
    return Arrays.copyOfRange(spki, outer, inner);
  }

  /** PrivateKeyInfo ::= SEQUENCE { version 0, algorithm, privateKey OCTET STRING }. */
  private static byte[] pkcs8(byte[] algorithm, byte[] key) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    content.writeBytes(new byte[] {0x02, 0x01, 0x00});
    content.writeBytes(algorithm);
    content.writeBytes(tlv(0x04, key));
    return tlv(0x30, content.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = value.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(n >>> (8 * i));
      }
    }
    out.writeBytes(value);
    return out.toByteArray();
  }

  /** Bytes of the tag and length of the DER element at {@code at}. */
  private static int headerLength(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    return first < 0x80 ? 2 : 2 + (first & 0x7f);
  }

  private static int contentLength(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int n = 0;
    for (int i = 0; i < (first & 0x7f); i++) {
      n = (n << 8) | (der[at + 2 + i] & 0xff);
    }
    return n;
  }
}
