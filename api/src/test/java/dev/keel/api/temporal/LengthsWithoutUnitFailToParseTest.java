package dev.keel.api.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Workflow messages once carried lengths as bare numbers in the experiment's unit; they now carry
 * {@code Length} messages under the same JSON names. A payload of the old shape (a recorded
 * history, a workflow started before the change) must fail to parse, not read as "no length".
 */
class LengthsWithoutUnitFailToParseTest {
  private final DataConverter converter = KeelDataConverter.get();

  @Test
  void oldTrialMessagesFailInEitherJsonEncoding() {
    for (String encoding : new String[] {"json/protobuf", "json/plain"}) {
      assertFails(encoding, "{\"trialId\":\"1\",\"targetLength\":\"64\"}", TrialRequest.class);
      assertFails(
          encoding,
          "{\"trialId\":\"1\",\"targetLength\":\"64\",\"completedLength\":\"16\"}",
          TrialState.class);
      assertFails(encoding, "{\"trainToLength\":\"64\"}", TrialCommand.class);
      assertFails(
          encoding,
          "{\"trialId\":\"1\",\"validation\":{\"length\":\"16\",\"metric\":0.5}}",
          TrialReport.class);
    }
  }

  @Test
  void newMessagesCarryTheirUnit() {
    TrialRequest r =
        converter.fromPayloads(
            0,
            payloads("json/protobuf", "{\"targetLength\":{\"epochs\":\"2\"}}"),
            TrialRequest.class,
            TrialRequest.class);
    assertEquals(Length.newBuilder().setEpochs(2).build(), r.getTargetLength());
  }

  @Test
  void aRenamedFieldWouldNotFailBecauseJsonProtobufIgnoresUnknownFields() {
    // why the lengths kept their names: this is what an old payload would do to a renamed field
    TrialRequest r =
        converter.fromPayloads(
            0,
            payloads("json/protobuf", "{\"trialId\":\"1\",\"targetUnits\":\"64\"}"),
            TrialRequest.class,
            TrialRequest.class);
    assertEquals(1, r.getTrialId());
  }

  private <T extends Message> void assertFails(String encoding, String json, Class<T> type) {
    assertThrows(
        DataConverterException.class,
        () -> converter.fromPayloads(0, payloads(encoding, json), type, type),
        type.getSimpleName() + " as " + encoding + ": " + json);
  }

  private static Optional<Payloads> payloads(String encoding, String json) {
    return Optional.of(
        Payloads.newBuilder()
            .addPayloads(
                Payload.newBuilder()
                    .putMetadata("encoding", ByteString.copyFromUtf8(encoding))
                    .setData(ByteString.copyFromUtf8(json)))
            .build());
  }
}
