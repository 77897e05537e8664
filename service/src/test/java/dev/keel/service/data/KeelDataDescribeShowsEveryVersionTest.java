package dev.keel.service.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.service.api.ApiServer;
import dev.keel.service.cli.KeelRun;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `keel data describe` and GET /api/v1/data/describe show each version: operation, source,
 * checksum, counts.
 */
class KeelDataDescribeShowsEveryVersionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Rows of real Fashion-MNIST pixels (four block means of the t10k images) as a CSV; label = class
   * number.
   */
  static Path csv(Path file, int from, int to) throws Exception {
    var t10k = IdxFiles.read(Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR), "t10k");
    List<String> lines =
        new ArrayList<>(List.of("top_left,top_right,bottom_left,bottom_right,kind,split"));
    for (int i = from; i < to; i++) {
      float[] q = new float[4];
      for (int p = 0; p < 784; p++) {
        q[(p / 28 / 14) * 2 + (p % 28) / 14] += (t10k.pixels()[i * 784 + p] & 0xFF) / 196f;
      }
      lines.add(
          q[0]
              + ","
              + q[1]
              + ","
              + q[2]
              + ","
              + q[3]
              + ","
              + IngestActivitiesImpl.FASHION_MNIST_CLASSES.get(t10k.labels()[i]).replace("/", "-")
              + ","
              + (i % 5 == 0 ? "test" : "train"));
    }
    Files.write(file, lines);
    return file;
  }

  static String[] cli(String... args) {
    KeelRun.Result r = KeelRun.keel(args);
    return new String[] {Integer.toString(r.code()), r.out(), r.err()};
  }

  @Test
  void theCliAndTheApiShowAppendThenOverwrite(@TempDir Path dir) throws Exception {
    StorageRoot root = StorageRoot.of(dir.resolve("keel-data").toString());
    IngestActivitiesImpl etl = new IngestActivitiesImpl(root);
    DataSource.Builder src =
        DataSource.newBuilder().setFormat(DataSource.Format.csv).setLabelColumn("kind");
    IngestResult v0 =
        etl.ingest(
            IngestRequest.newBuilder()
                .setTableUri("clothes")
                .setSource(src.clone().setUri(csv(dir.resolve("a.csv"), 0, 50).toString()))
                .build());
    IngestResult v1 =
        etl.ingest(
            IngestRequest.newBuilder()
                .setTableUri("clothes")
                .setSource(
                    src.clone()
                        .setUri(csv(dir.resolve("b.csv"), 50, 80).toString())
                        .setMode(IngestMode.overwrite))
                .build());
    assertEquals(1, v1.getTable().getVersion());

    String[] r = cli("data", "describe", "clothes", "--storage", root.toString());
    assertEquals("0", r[0], r[2]);
    String out = r[1];
    assertTrue(out.contains("table " + root.table("clothes")), out);
    List<String> lines = out.lines().toList();
    String line0 =
        lines.stream()
            .filter(l -> l.startsWith("0 "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(out));
    String line1 =
        lines.stream()
            .filter(l -> l.startsWith("1 "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(out));
    assertTrue(
        line0.contains(" append ")
            && line0.contains(v0.getSourceChecksum().substring(0, 16))
            && line0.endsWith(dir.resolve("a.csv").toString()),
        line0);
    assertTrue(
        line1.contains(" overwrite ")
            && line1.contains(v1.getSourceChecksum().substring(0, 16))
            && line1.endsWith(dir.resolve("b.csv").toString()),
        line1);
    assertTrue(out.contains("rows per split: test=10, train=40"), out);
    assertTrue(out.contains("rows per split: test=6, train=24"), out);
    assertTrue(out.contains("rows per label: "), out);
    System.out.println(out);

    String[] missing = cli("data", "describe", "nope", "--storage", root.toString());
    assertEquals("2", missing[0]);
    assertTrue(missing[2].contains("no Delta table at " + root.table("nope")), missing[2]);

    etl.ingest(
        IngestRequest.newBuilder()
            .setTableUri("shoes")
            .setSource(src.clone().setUri(csv(dir.resolve("c.csv"), 0, 10).toString()))
            .build());
    String[] list = cli("data", "list", "--storage", root.toString());
    assertEquals("0", list[0], list[2]);
    List<String> listed = list[1].lines().toList();
    assertTrue(listed.get(0).startsWith("TABLE    VERSION  UPDATED (UTC)"), list[1]);
    assertTrue(listed.get(1).startsWith("clothes        1  "), list[1]);
    assertTrue(listed.get(2).startsWith("shoes          0  "), list[1]);
    JsonNode page =
        JSON.readTree(
            cli(
                "data",
                "list",
                "--offset",
                "1",
                "--limit",
                "1",
                "--json",
                "--storage",
                root.toString())[1]);
    assertEquals(2, page.get("total").asInt());
    assertEquals("shoes", page.get("tables").get(0).get("name").asText());

    LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
    WorkflowServiceStubs stubs = KeelWorkerHost.connect(temporal.address());
    try (ApiServer api =
        ApiServer.start("127.0.0.1", 0, KeelWorkerHost.client(stubs, "default"), root)) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> ok =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/data/describe?table=clothes"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, ok.statusCode(), ok.body());
      JsonNode versions = JSON.readTree(ok.body()).get("versions");
      assertEquals(2, versions.size(), ok.body());
      assertEquals("overwrite", versions.get(1).get("operation").asText());
      assertEquals(v1.getSourceChecksum(), versions.get(1).get("source_checksum").asText());
      assertEquals(24, versions.get(1).get("rows_per_split").get("train").asLong());
      HttpResponse<String> tables =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/data")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, tables.statusCode(), tables.body());
      assertEquals(
          1,
          JSON.readTree(tables.body()).get("tables").get(0).get("latest_version").asInt(),
          tables.body());
      HttpResponse<String> badPage =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/data?limit=0")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(400, badPage.statusCode(), badPage.body());
      HttpResponse<String> none =
          http.send(
              HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/data/describe?table=nope"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(404, none.statusCode(), none.body());
    } finally {
      stubs.shutdown();
      temporal.close();
    }
  }
}
