package dev.keel.gpu.gang;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintNamesWhatRanksDisagreeOnTest {
  private static Fingerprint.Builder base() {
    return Fingerprint.builder()
        .set("model", "fashion_cnn")
        .set("data", "file:///t@3")
        .set("parameters", 206922);
  }

  @Test
  void aFingerprintSurvivesItsTextForm() {
    Fingerprint f = base().set("hyperparameters", "{lr=0.1,\nwidth=16}").build();
    assertEquals(List.of(), f.differences(Fingerprint.parse(f.text())));
  }

  @Test
  void everyDifferingFieldIsNamedWithBothValuesAndNothingIsRetried() {
    Fingerprint here = base().build();
    Fingerprint there =
        Fingerprint.parse(
            base().set("data", "file:///t@4").set("parameters", 206923).build().text()
                + "threads=2\n");
    KeelFailure f = assertThrows(KeelFailure.class, () -> here.requireSame(there, "rank 0"));
    assertEquals(FailureTypes.GANG_MISMATCH, f.type());
    assertFalse(f.retryable());
    assertEquals(
        "this rank and rank 0 would train different things: data 'file:///t@3' here, 'file:///t@4' there;"
            + " parameters '206922' here, '206923' there; threads (absent) here, '2' there",
        f.getMessage());
  }
}
