package dev.keel.gpu.train;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.FashionMnist;
import java.nio.file.Path;

/** Child-process half of the resume test: {@code ResumeMain <root> <checkpointUri> <target>}. */
public final class ResumeMain {
  private ResumeMain() {}

  public static void main(String[] args) throws Exception {
    var request =
        ResumeTest.request(Path.of(args[0]), Long.parseLong(args[2]))
            .setStartFrom(CheckpointRef.newBuilder().setUri(args[1]))
            .build();
    TrainingOutcome out =
        new Trainer(
                TrainingPlan.from(request, ModelZoo.withBuiltIns()),
                FashionMnist.train(),
                ProgressListener.NONE)
            .run();
    System.out.println("CHECKPOINT " + out.checkpoint().getUri());
    System.exit(0);
  }
}
