package dev.keel.api.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.keel.api.v1.ExperimentCarry;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialState;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * States and exit reasons were strings before they were enums: payloads written then (recorded
 * histories, running workflows) must read the same, and JSON readers must keep seeing the names.
 */
class StatesAndExitReasonsKeepTheirJsonNamesTest {
  private final DataConverter converter = KeelDataConverter.get();

  @Test
  void payloadsWrittenWhenTheyWereStringsReadAsEnums() {
    for (String encoding : new String[] {"json/protobuf", "json/plain"}) {
      assertEquals(
          TrialState.State.INVALID_HP,
          read(encoding, "{\"trialId\":\"3\",\"state\":\"INVALID_HP\"}", TrialState.class)
              .getState());
      assertEquals(
          ExperimentState.State.PAUSED,
          read(encoding, "{\"experimentId\":\"e\",\"state\":\"PAUSED\"}", ExperimentState.class)
              .getState());
      assertEquals(
          ExperimentState.State.KILLED,
          read(encoding, "{\"state\":\"KILLED\"}", ExperimentCarry.class).getState());
      assertEquals(
          TrialReport.Exit.Reason.USER_STOPPED,
          read(
                  encoding,
                  "{\"trialId\":\"2\",\"exit\":{\"reason\":\"USER_STOPPED\"}}",
                  TrialReport.class)
              .getExit()
              .getReason());
    }
  }

  @Test
  void payloadsCarryTheValueNames() {
    String json =
        written(
            TrialReport.newBuilder()
                .setTrialId(2)
                .setExit(TrialReport.Exit.newBuilder().setReason(TrialReport.Exit.Reason.ERRORED))
                .build());
    assertTrue(json.contains("\"reason\": \"ERRORED\""), json);
    json =
        written(
            ExperimentState.newBuilder()
                .setState(ExperimentState.State.COMPLETED)
                .addTrials(TrialState.newBuilder().setState(TrialState.State.KILLED))
                .build());
    assertTrue(
        json.contains("\"state\": \"COMPLETED\"") && json.contains("\"state\": \"KILLED\""), json);
  }

  private String written(Object value) {
    return converter
        .toPayloads(value)
        .orElseThrow()
        .getPayloads(0)
        .getData()
        .toString(StandardCharsets.UTF_8);
  }

  private <T> T read(String encoding, String json, Class<T> type) {
    return converter.fromPayloads(
        0,
        Optional.of(
            Payloads.newBuilder()
                .addPayloads(
                    Payload.newBuilder()
                        .putMetadata("encoding", ByteString.copyFromUtf8(encoding))
                        .setData(ByteString.copyFromUtf8(json)))
                .build()),
        type,
        type);
  }
}
