package dev.keel.service.cli;

import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.TlsOptions;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Serve the REST API, /metrics (Prometheus) and /health for a Temporal cluster and a storage root,"
        + " until stopped: the API of a team's deployment (keel dev serves its own on 127.0.0.1).",
        "On an address other than loopback every request but /health needs the header 'Authorization: Bearer $"
            + ApiToken.ENV + "'; without the variable it refuses to start."})
final class ServeCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Mixin ServeTlsOptions tlsOptions;

  @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface, token required).")
  String host;

  @Option(names = "--port", defaultValue = "8080", description = "Port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--namespace", defaultValue = "default", description = "Temporal namespace (default: ${DEFAULT-VALUE}).")
  String namespace;

  @Override
  public Integer call() throws Exception {
    ApiToken token = ApiToken.fromEnvironment();
    TlsOptions tls = tlsOptions.forHost(host);
    StorageRoot root = stack.storageRoot();
    String address = stack.temporalAddressOrNull() == null ? "127.0.0.1:7233" : stack.temporalAddressOrNull();
    WorkflowServiceStubs stubs = KeelWorkerHost.connectReporting(address);
    try (ApiServer api = ApiServer.start(host, port, KeelWorkerHost.client(stubs, namespace, root), root, token,
        tls)) {
      System.out.println("Keel API on " + api.url() + " for Temporal " + address + " (namespace " + namespace
          + "), storage " + root + (token.required() ? "; bearer token required" : "; loopback only, no token")
          + ". Stop with Ctrl-C.");
      Thread.currentThread().join();
      return 0;
    } finally {
      stubs.shutdown();
    }
  }
}
