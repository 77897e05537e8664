package dev.keel.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.config.SourceFormat;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;

/**
 * What an experiment needs to run for real behind the API: a loopback Temporal test server, a
 * storage root with Fashion-MNIST ingested as {@code fashion_mnist}, a control and a one-thread
 * training worker, and the API on a free loopback port.
 */
public final class SearchStack implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LoopbackTemporalServer temporal;
  private final StorageRoot root;
  private final KeelWorkerHost workers;
  private final ApiServer api;

  private SearchStack(
      LoopbackTemporalServer temporal, StorageRoot root, KeelWorkerHost workers, ApiServer api) {
    this.temporal = temporal;
    this.root = root;
    this.workers = workers;
    this.api = api;
  }

  public static SearchStack start(String name) throws IOException {
    LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
    StorageRoot root = StorageRoot.of(TestDirs.create(name).toString());
    new IngestActivitiesImpl(root)
        .ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(SourceFormat.FASHION_MNIST.proto())
                        .setUri(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR))
                .setTableUri("fashion_mnist")
                .build());
    KeelWorkerHost workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(temporal.address())
                .setStorageRoot(root)
                .optDevServer(true)
                .optTrainThreads(1)
                .optRoles(EnumSet.of(Role.CONTROL, Role.TRAIN))
                .build());
    return new SearchStack(
        temporal, root, workers, ApiServer.start("127.0.0.1", 0, workers.client(), root));
  }

  public String url() {
    return api.url();
  }

  public StorageRoot root() {
    return root;
  }

  /**
   * The workers' client of the Temporal test server, e.g. for a second API server on the same
   * stack.
   */
  public WorkflowClient client() {
    return workers.client();
  }

  /** HOST:PORT of the Temporal test server, for {@code keel ... --temporal}. */
  public String temporalAddress() {
    return temporal.address();
  }

  /** Submits an experiment config (YAML) through the API and returns its id. */
  public String submit(String yaml) throws IOException, InterruptedException {
    HttpResponse<String> created =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url() + "/api/v1/experiments"))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(yaml))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (created.statusCode() != 202) {
      throw new IllegalStateException(
          "the API refused the experiment: " + created.statusCode() + " " + created.body());
    }
    return JSON.readTree(created.body()).get("experiment_id").asText();
  }

  public HttpResponse<String> post(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url() + path))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public JsonNode getJson(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = get(path);
    if (r.statusCode() != 200) {
      throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }

  @Override
  public void close() {
    api.close();
    workers.close();
    temporal.close();
  }
}
