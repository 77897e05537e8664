package dev.keel.workflows.inference;

import dev.keel.activities.drift.DriftActivities;
import dev.keel.activities.drift.DriftActivityOptions;
import dev.keel.activities.registry.ModelRegistryActivities;
import dev.keel.activities.registry.ModelRegistryActivityOptions;
import dev.keel.activities.schedule.ScheduleActivities;
import dev.keel.activities.schedule.ScheduleActivityOptions;
import dev.keel.api.config.DriftConfigRules;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InputStatistics;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.ReferenceStatisticsRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TriggerScheduleRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.Locale;

/**
 * The drift check of one Inference run, in workflow code: before scoring it pins the reference (the
 * model's training data) and fetches its statistics, so a bad reference refuses the run before
 * anything is written; after scoring it scores the run ({@link DriftCheck}), triggers the
 * retraining schedule when the run drifted, and records the report in {@code _keel/drift}.
 */
final class DriftStage {
  private final DriftConfig config;
  private final InputStatistics reference;

  private DriftStage(DriftConfig config, InputStatistics reference) {
    this.config = config;
    this.reference = reference;
  }

  /**
   * Resolves the reference (the model version's data when the request names none) and reads its
   * statistics.
   */
  static DriftStage prepare(InferenceRequest request) {
    DriftConfig config = DriftConfigRules.withDefaults(request.getDrift());
    if (!config.hasReference()) {
      ModelVersionRef model = modelRef(request.getModelVersion());
      TableRef data =
          Workflow.newActivityStub(
                  ModelRegistryActivities.class,
                  ModelRegistryActivityOptions.forRegistry(
                      "Find the training data of model " + request.getModelVersion()))
              .describe(model)
              .getData();
      config = config.toBuilder().setReference(data).build();
    }
    TableRef ref = config.getReference();
    InputStatistics statistics =
        drift(
                "Statistics of the "
                    + config.getReferenceSplit()
                    + " split of "
                    + ref.getUri()
                    + " v"
                    + ref.getVersion())
            .referenceStatistics(
                ReferenceStatisticsRequest.newBuilder()
                    .setTable(ref)
                    .setSplit(config.getReferenceSplit())
                    .build());
    return new DriftStage(config, statistics);
  }

  /** "name/version" as the registry's reference; the input check made sure it has that form. */
  static ModelVersionRef modelRef(String modelVersion) {
    int slash = modelVersion.lastIndexOf('/');
    return ModelVersionRef.newBuilder()
        .setName(modelVersion.substring(0, slash))
        .setVersion(Long.parseLong(modelVersion.substring(slash + 1)))
        .build();
  }

  /** Scores the run, acts on a drift, records the report (after the predictions were committed). */
  DriftReport check(
      InferenceRequest request, InputStatistics run, TableRef predictions, String runId) {
    DriftReport report = DriftCheck.report(run, reference, config);
    if (report.getDrifted() && config.hasOnDrift()) {
      report = trigger(report, runId);
    }
    DriftRecord.Builder record =
        DriftRecord.newBuilder()
            .setRunId(runId)
            .setModelVersion(request.getModelVersion())
            .setData(request.getData())
            .setSplit(request.getSplit())
            .setReport(report)
            .setTimeMillis(Workflow.currentTimeMillis())
            .setWorkflowId(Workflow.getInfo().getWorkflowId());
    if (predictions != null) {
      record.setPredictions(predictions);
    }
    drift("Record the drift report of run " + runId).record(record.build());
    return report;
  }

  /**
   * A failed trigger does not fail the run (its predictions are committed): the report says why.
   */
  private DriftReport trigger(DriftReport report, String runId) {
    String schedule = config.getOnDrift().getTriggerSchedule();
    String reason =
        String.format(
            Locale.ROOT,
            "drift of inference run %s: %s %.4f > %.4f",
            runId,
            report.getMeasure(),
            report.getScore(),
            report.getThreshold());
    try {
      Workflow.newActivityStub(
              ScheduleActivities.class,
              ScheduleActivityOptions.forTrigger(
                  "Trigger schedule " + schedule + " (" + reason + ")"))
          .trigger(
              TriggerScheduleRequest.newBuilder()
                  .setScheduleId(schedule)
                  .setReason(reason)
                  .build());
      return report.toBuilder().setTriggeredSchedule(schedule).build();
    } catch (ActivityFailure e) {
      Throwable c = e;
      while (c.getCause() != null) {
        c = c.getCause();
      }
      Workflow.getLogger(DriftStage.class)
          .warn("drifted run {} could not trigger schedule {}: {}", runId, schedule, c);
      String why = c instanceof ApplicationFailure a ? a.getOriginalMessage() : c.getMessage();
      return report.toBuilder().setTriggerError(why).build();
    }
  }

  private static DriftActivities drift(String summary) {
    return Workflow.newActivityStub(DriftActivities.class, DriftActivityOptions.forDrift(summary));
  }
}
