package dev.keel.api.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.PipelineRequest;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.ProtobufPayloadConverter;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProtoAwareJsonPlainPayloadConverterTest {
  private final DataConverter converter = KeelDataConverter.get();

  @Test
  void readsProtobufMessagesFromJsonPlainAsTheTemporalCliSendsThem() {
    PipelineRequest r =
        converter.fromPayloads(
            0,
            JsonPlainPayloads.of(
                "{\"name\":\"demo\",\"source\":{\"format\":\"fashion_mnist\"},\"targetTable\":\"t\"}"),
            PipelineRequest.class,
            PipelineRequest.class);
    assertEquals("demo", r.getName());
    assertEquals(DataSource.Format.fashion_mnist, r.getSource().getFormat());
    assertEquals("t", r.getTargetTable());
  }

  @Test
  void unknownFieldsInJsonPlainFailWithTheirPaths() {
    DataConverterException e =
        assertThrows(
            DataConverterException.class,
            () ->
                converter.fromPayloads(
                    0,
                    JsonPlainPayloads.of("{\"source\":{\"formatt\":\"x\"},\"target_table\":7}"),
                    PipelineRequest.class,
                    PipelineRequest.class));
    assertTrue(e.getMessage().contains("source.formatt: unknown field"), e.getMessage());
    assertTrue(e.getMessage().contains("target_table: expected a string, got 7"), e.getMessage());
  }

  @Test
  void messagesStillTravelAsBinaryProtobufAndJsonProtobuf() {
    PipelineRequest r =
        PipelineRequest.newBuilder()
            .setName("x")
            .setSource(DataSource.newBuilder().setFormat(DataSource.Format.fashion_mnist))
            .build();
    Payloads asDefault = converter.toPayloads(r).orElseThrow();
    assertEquals(
        "json/protobuf", asDefault.getPayloads(0).getMetadataOrThrow("encoding").toStringUtf8());
    assertEquals(
        r,
        converter.fromPayloads(
            0, Optional.of(asDefault), PipelineRequest.class, PipelineRequest.class));
    Payload binary = new ProtobufPayloadConverter().toData(r).orElseThrow();
    assertEquals(
        r,
        converter.fromPayloads(
            0,
            Optional.of(Payloads.newBuilder().addPayloads(binary).build()),
            PipelineRequest.class,
            PipelineRequest.class));
  }

  @Test
  void plainJavaValuesStillUseJackson() {
    Optional<Payloads> p = converter.toPayloads(Map.of("a", 1));
    @SuppressWarnings("unchecked")
    Map<String, Integer> back = converter.fromPayloads(0, p, Map.class, Map.class);
    assertEquals(1, back.get("a"));
  }
}
