package dev.keel.service.cli;

import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.TlsOptions;
import dev.keel.service.security.DataRoots;
import dev.keel.service.security.TokensFile;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Serve the REST API, /metrics and /health for a Temporal cluster and a storage root until stopped.",
      "The API of a team's deployment (keel dev serves its own on 127.0.0.1); /metrics is in Prometheus' text format.",
      "On an address other than loopback every request but /health needs the header 'Authorization: Bearer $"
          + ApiToken.ENV
          + "' or a token of --tokens; without either it refuses to start."
    })
final class ServeCommand implements Callable<Integer> {
  @Mixin StackOptions.Serve stack;

  @Mixin ServeTlsOptions tlsOptions;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      paramLabel = "ADDRESS",
      description =
          "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface, token required).")
  String host;

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "Port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--namespace",
      defaultValue = "default",
      description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--data-root",
      paramLabel = "DIR|s3://BUCKET/PREFIX",
      description =
          "A place requests may read sources from or write tables to besides the storage root (repeatable);"
              + " every path a request names must lie inside one.")
  List<String> dataRoots = new ArrayList<>();

  @Option(
      names = "--tokens",
      paramLabel = "FILE",
      description =
          "Users of the API: a YAML file of tokens with a name, a role (viewer|editor|admin) and the token's"
              + " SHA-256 (keel token create writes it); read again whenever it changes.")
  Path tokens;

  @Override
  public Integer call() throws Exception {
    ApiToken token = ApiToken.fromEnvironment();
    if (tokens != null) {
      token = token.withUsers(TokensFile.open(tokens));
    }
    TlsOptions tls = tlsOptions.forHost(host);
    StorageRoot root = stack.storageRoot();
    String address = stack.contacting(stack.clientAddress());
    WorkflowServiceStubs stubs = KeelWorkerHost.connectReporting(address);
    DataRoots roots = DataRoots.of(root, dataRoots);
    try (ApiServer api =
        ApiServer.start(
            host, port, KeelWorkerHost.client(stubs, namespace, root), roots, token, tls)) {
      System.out.println(
          "Keel API on "
              + api.url()
              + " for Temporal "
              + address
              + " (namespace "
              + namespace
              + "), storage "
              + root
              + (token.required()
                  ? "; bearer token required (" + token + ")"
                  : "; loopback only, no token")
              + "; requests may name places in "
              + roots.describe()
              + ". Stop with Ctrl-C.");
      Thread.currentThread().join();
      return 0;
    } finally {
      stubs.shutdown();
    }
  }
}
