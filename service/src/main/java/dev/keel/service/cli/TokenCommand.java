package dev.keel.service.cli;

import dev.keel.service.security.Role;
import dev.keel.service.security.TokensFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    description =
        "API users: create, list and revoke the tokens of a tokens file (keel serve --tokens FILE).",
    subcommands = {
      TokenCommand.Create.class,
      TokenCommand.ListTokens.class,
      TokenCommand.Revoke.class,
      TokenCommand.Hash.class
    })
final class TokenCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Make a new token for NAME with a role, record its SHA-256 in the file and print the token once.",
        "A running keel serve --tokens FILE accepts it at once; the file never holds the token itself."
      })
  static final class Create implements Callable<Integer> {
    @Parameters(
        paramLabel = "NAME",
        description = "Who uses the token: what the audit table shows.")
    String name;

    @Option(
        names = "--role",
        required = true,
        paramLabel = "viewer|editor|admin",
        description =
            "viewer reads; editor also submits, previews, pauses and kills; admin also promotes models.")
    String role;

    @Option(
        names = "--file",
        required = true,
        paramLabel = "FILE",
        description = "The tokens file (created if missing).")
    Path file;

    @Override
    public Integer call() throws Exception {
      if (!name.matches(TokensFile.NAME)) {
        throw new IllegalArgumentException("NAME '" + name + "' must match " + TokensFile.NAME);
      }
      byte[] secret = new byte[32];
      new SecureRandom().nextBytes(secret);
      String token = HexFormat.of().formatHex(secret);
      TokensFile.put(
          file, new TokensFile.Entry(name, Role.parse(role), TokensFile.sha256Hex(token)));
      System.out.println(token);
      System.err.println(
          "keel: token of "
              + name
              + " ("
              + Role.parse(role).label()
              + ") recorded in "
              + file
              + "; it is shown this once: send it as 'Authorization: Bearer <token>'");
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The names and roles in a tokens file.")
  static final class ListTokens implements Callable<Integer> {
    @Option(
        names = "--file",
        required = true,
        paramLabel = "FILE",
        description = "The tokens file.")
    Path file;

    @Override
    public Integer call() {
      System.out.printf(Locale.ROOT, "%-20s  %-7s  %s%n", "NAME", "ROLE", "SHA256");
      for (TokensFile.Entry e : TokensFile.read(file)) {
        System.out.printf(
            Locale.ROOT,
            "%-20s  %-7s  %s…%n",
            e.name(),
            e.role().label(),
            e.sha256().substring(0, 12));
      }
      return 0;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description =
          "Remove NAME's token from a tokens file; a running server refuses it from its next request on.")
  static final class Revoke implements Callable<Integer> {
    @Parameters(paramLabel = "NAME")
    String name;

    @Option(
        names = "--file",
        required = true,
        paramLabel = "FILE",
        description = "The tokens file.")
    Path file;

    @Override
    public Integer call() throws Exception {
      if (!TokensFile.revoke(file, name)) {
        System.err.println("keel: " + file + " has no token named " + name);
        return 2;
      }
      System.err.println("keel: token of " + name + " revoked in " + file);
      return 0;
    }
  }

  @Command(
      name = "hash",
      mixinStandardHelpOptions = true,
      description =
          "Print the SHA-256 of a token read from standard input, for a tokens file kept by hand.")
  static final class Hash implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      String token = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).strip();
      if (token.isEmpty()) {
        System.err.println("keel: no token on standard input");
        return 2;
      }
      System.out.println(TokensFile.sha256Hex(token));
      return 0;
    }
  }
}
