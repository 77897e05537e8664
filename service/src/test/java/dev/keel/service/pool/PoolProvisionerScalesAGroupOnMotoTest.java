package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.pool.PoolDemandActivities;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolDecision;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolDemandRequest;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolProvisionerRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import dev.keel.service.testing.Poll;
import dev.keel.workflows.KeelWorkflows;
import dev.keel.workflows.pool.PoolProvisionerWorkflow;
import dev.keel.workflows.pool.PoolProvisionerWorkflowImpl;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.autoscaling.model.Instance;

/**
 * The PoolProvisioner workflow in Temporal's test environment (time skipping), resizing a real Auto
 * Scaling group in moto through the real {@link PoolCapacityActivitiesImpl}; the demand is scripted
 * ({@link ScriptedDemand}, a stand-in for {@link ExperimentDemandObserver}, which
 * ExperimentDemandObserverSeesARealSearchTest runs against real experiments).
 */
@Tag("pool-moto")
class PoolProvisionerScalesAGroupOnMotoTest {
  private static final Duration POLL = Duration.ofSeconds(30);

  private TestWorkflowEnvironment env;
  private final ScriptedDemand demand = new ScriptedDemand();

  /**
   * Stand-in for the demand observer: the gangs the test says, as running experiments would show
   * them.
   */
  static final class ScriptedDemand implements PoolDemandActivities {
    private volatile PoolDemand now = PoolDemand.getDefaultInstance();

    void set(PoolGang... gangs) {
      now = PoolDemand.newBuilder().addAllGangs(List.of(gangs)).build();
    }

    @Override
    public PoolDemand observe(PoolDemandRequest request) {
      return now;
    }
  }

  @BeforeEach
  void startEnvironment() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(
                    WorkflowClientOptions.newBuilder()
                        .setDataConverter(KeelDataConverter.get())
                        .build())
                .setUseTimeskipping(true)
                .build());
    Worker control = env.newWorker(TaskQueues.CONTROL);
    control.registerWorkflowImplementationTypes(
        KeelWorkflows.options(), PoolProvisionerWorkflowImpl.class);
    control.registerActivitiesImplementations(demand, new PoolCapacityActivitiesImpl());
    env.start();
  }

  @AfterEach
  void stopEnvironment() {
    env.close();
  }

  @Test
  void scalesOutForAQueuedGangProtectsItsRanksAndScalesInOnlyAfterTheIdlePeriod() throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-pool-scaling", "t3.micro", 4);
    // continuing as new every 4 looks: what it remembers of each instance (idle since when) crosses
    // the runs
    PoolProvisionerWorkflow pool =
        start(
            PoolSpec.newBuilder()
                .setName("gpu")
                .setSlotsPerInstance(1)
                .setMaxInstances(4)
                .setMaxIdlePeriod("5m")
                .setPollInterval("30s")
                .setContinueAsNewAfterIterations(4)
                .setAwsAsg(group)
                .build());

    // a trial with slots_per_trial 2 queues: its gang needs 2 one-slot instances at once
    demand.set(gang("experiment-a/trial-1", 2, 0));
    PoolStatus first = awaitLooks(pool, 1);
    assertEquals(
        "1 queued gang needs 2 more instances (gang of 2 slots; 2 slots in all on 1-slot instances = 2): desired 0 → 2",
        first.getLastDecision().getReason());
    assertTrue(first.getLastDecision().getApplied());
    AutoScalingGroup asg = MotoGroups.describe("keel-pool-scaling");
    assertEquals(2, asg.desiredCapacity());
    List<String> ids = asg.instances().stream().map(Instance::instanceId).sorted().toList();
    assertEquals(2, ids.size());

    // its ranks start on the two instances (their private addresses, as ranks report their host)
    env.sleep(POLL);
    PoolStatus seen = awaitLooks(pool, 2); // the instances, as the provisioner sees them now
    assertEquals(ids, seen.getInstancesList().stream().map(i -> i.getInstanceId()).toList());
    demand.set(
        gang(
            "experiment-a/trial-1",
            2,
            2,
            seen.getInstances(0).getHost(),
            seen.getInstances(1).getHost()));
    env.sleep(POLL);
    PoolStatus busy = awaitLooks(pool, 3);
    assertEquals(2, busy.getBusy());
    assertEquals(ids, busy.getLastDecision().getProtectList());
    assertTrue(
        busy.getLastDecision()
            .getReason()
            .endsWith("protect " + String.join(", ", ids) + " (running ranks)"),
        busy.getLastDecision().getReason());
    assertEquals(ids, protectedIds());

    // the trial ends: released at once, but kept for max_idle_period
    demand.set();
    env.sleep(POLL);
    PoolStatus idle = awaitLooks(pool, 4);
    assertEquals(2, idle.getIdle());
    assertEquals(ids, idle.getLastDecision().getUnprotectList());
    assertEquals(List.of(), protectedIds());
    env.sleep(Duration.ofMinutes(4));
    PoolStatus stillIdle = awaitLooks(pool, 12);
    assertEquals(
        2,
        MotoGroups.describe("keel-pool-scaling").desiredCapacity(),
        "idle 4m of max_idle_period 5m");
    assertTrue(
        stillIdle
            .getLastDecision()
            .getReason()
            .startsWith("2 instances more than needed (no demand), but "),
        stillIdle.getLastDecision().getReason());

    env.sleep(Duration.ofMinutes(2));
    PoolStatus scaledIn = awaitStatus(pool, s -> s.getLastChange().getDesired() == 0);
    PoolDecision in = scaledIn.getLastChange();
    assertTrue(in.getApplied());
    assertTrue(
        in.getReason()
            .matches(
                "instance i-\\w+ idle for 5m\\d*s? > max_idle_period 5m, instance i-\\w+ idle for 5m\\d*s?"
                    + " > max_idle_period 5m: scale in \\(2 instances more than needed \\(no demand\\)\\), desired 2 → 0"),
        in.getReason());
    assertEquals(0, MotoGroups.describe("keel-pool-scaling").desiredCapacity());
    assertTrue(scaledIn.getContinuedAsNew() >= 3, "runs so far: " + scaledIn.getContinuedAsNew());

    pool.stop();
    PoolStatus last =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(PoolProvisionerWorkflow.workflowId("gpu"))
            .getResult(PoolStatus.class);
    assertTrue(last.getStopped());
    assertEquals(
        0,
        MotoGroups.describe("keel-pool-scaling").desiredCapacity(),
        "stopping leaves the group as it is");
    // the last run replays against the workflow code without a non-determinism error
    WorkflowReplayer.replayWorkflowExecution(
        env.getWorkflowClient().fetchHistory(PoolProvisionerWorkflow.workflowId("gpu")),
        PoolProvisionerWorkflowImpl.class);
  }

  @Test
  void aRefusedLaunchIsRecordedWithTheProvidersReasonAndBacksOffLongerEachTime() throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-pool-backoff", "p9.mega", 4);
    PoolProvisionerWorkflow pool =
        start(
            PoolSpec.newBuilder()
                .setName("gpu")
                .setSlotsPerInstance(1)
                .setMaxInstances(4)
                .setPollInterval("30s")
                .setLaunchErrorBackoff("1m")
                .setMaxLaunchErrorBackoff("4m")
                .setAwsAsg(group)
                .build());

    demand.set(gang("experiment-b/trial-1", 1, 0));
    PoolStatus first = awaitStatus(pool, s -> s.hasLastError());
    assertEquals(1, first.getLastError().getConsecutiveFailures());
    String reason = first.getLastError().getMessage();
    assertTrue(
        reason.startsWith(
            "the provider refused desired 1: SetDesiredCapacity 1 on Auto Scaling group keel-pool-backoff"),
        reason);
    assertTrue(
        reason.contains("InvalidInstanceType.NotFound: The instance type 'p9.mega' does not exist"),
        reason);
    assertFalse(first.getLastDecision().getApplied());
    assertEquals(
        first.getLastError().getTimeMillis() + 60_000,
        first.getBackoffUntilMillis(),
        "back-off 1m");

    // moto keeps the desired count it refused to launch for (AWS would not): the demand grows by a
    // gang at a
    // time, so that each look after a back-off asks for one more instance
    demand.set(gangs(2));
    env.sleep(POLL);
    PoolStatus held = awaitLooks(pool, 2);
    assertTrue(
        held.getLastDecision().getReason().matches("backing off for \\d+s \\(until .*"),
        held.getLastDecision().getReason());
    assertTrue(
        held.getLastDecision()
            .getReason()
            .contains(" after 1 failure, the last: the provider refused desired 1: "),
        held.getLastDecision().getReason());
    assertFalse(held.getLastDecision().getApplied());
    assertEquals(
        1, held.getLastError().getConsecutiveFailures(), "nothing was asked during the back-off");

    PoolStatus second =
        advanceUntil(
            pool, s -> s.getLastError().getConsecutiveFailures() == 2, Duration.ofMinutes(1));
    assertTrue(
        second.getLastError().getMessage().startsWith("the provider refused desired 2: "),
        second.getLastError().getMessage());
    assertEquals(
        second.getLastError().getTimeMillis() + 120_000,
        second.getBackoffUntilMillis(),
        "back-off doubled to 2m");

    demand.set(gangs(3));
    PoolStatus third =
        advanceUntil(
            pool, s -> s.getLastError().getConsecutiveFailures() == 3, Duration.ofMinutes(3));
    assertEquals(
        third.getLastError().getTimeMillis() + 240_000,
        third.getBackoffUntilMillis(),
        "back-off doubled to 4m");
    demand.set(gangs(4));
    PoolStatus fourth =
        advanceUntil(
            pool, s -> s.getLastError().getConsecutiveFailures() == 4, Duration.ofMinutes(5));
    assertEquals(
        fourth.getLastError().getTimeMillis() + 240_000,
        fourth.getBackoffUntilMillis(),
        "capped at 4m");

    long resizes =
        env
            .getWorkflowClient()
            .fetchHistory(PoolProvisionerWorkflow.workflowId("gpu"))
            .getEvents()
            .stream()
            .filter(
                e ->
                    e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                        && e.getActivityTaskScheduledEventAttributes()
                            .getActivityType()
                            .getName()
                            .equals("ResizePool"))
            .count();
    assertEquals(4, resizes, "one request per back-off, over " + fourth.getIterations() + " looks");
    assertTrue(
        fourth.getIterations() >= 14,
        "looked every 30 s meanwhile (7.5 min): " + fourth.getIterations());
  }

  private PoolProvisionerWorkflow start(PoolSpec spec) {
    PoolProvisionerWorkflow pool =
        env.getWorkflowClient()
            .newWorkflowStub(
                PoolProvisionerWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(PoolProvisionerWorkflow.workflowId(spec.getName()))
                    .build());
    WorkflowClient.start(pool::run, PoolProvisionerRequest.newBuilder().setSpec(spec).build());
    return pool;
  }

  /**
   * Lets the provisioner look every poll interval, one look at a time, until {@code done} (at most
   * {@code max}).
   */
  private PoolStatus advanceUntil(
      PoolProvisionerWorkflow pool, Predicate<PoolStatus> done, Duration max)
      throws InterruptedException {
    long looks = pool.status().getIterations();
    for (Duration passed = Duration.ZERO; passed.compareTo(max) <= 0; passed = passed.plus(POLL)) {
      env.sleep(POLL);
      PoolStatus s = awaitLooks(pool, ++looks);
      if (done.test(s)) {
        return s;
      }
    }
    throw new AssertionError("not within " + max + " of looks: " + pool.status());
  }

  private static PoolStatus awaitLooks(PoolProvisionerWorkflow pool, long looks)
      throws InterruptedException {
    return awaitStatus(pool, s -> s.getIterations() >= looks);
  }

  /** Real time: the looks' activities call moto while the test server's clock stands. */
  private static PoolStatus awaitStatus(PoolProvisionerWorkflow pool, Predicate<PoolStatus> done)
      throws InterruptedException {
    return Poll.until("the provisioner's status", Duration.ofSeconds(60), pool::status, done);
  }

  private static List<String> protectedIds() throws Exception {
    return MotoGroups.describe("keel-pool-scaling").instances().stream()
        .filter(Instance::protectedFromScaleIn)
        .map(Instance::instanceId)
        .sorted()
        .toList();
  }

  /** {@code n} queued one-slot gangs. */
  private static PoolGang[] gangs(int n) {
    return IntStream.rangeClosed(1, n)
        .mapToObj(i -> gang("experiment-b/trial-" + i, 1, 0))
        .toArray(PoolGang[]::new);
  }

  static PoolGang gang(String trial, int slots, int started, String... hosts) {
    return PoolGang.newBuilder()
        .setTrialWorkflowId(trial)
        .setSlots(slots)
        .setRanksStarted(started)
        .addAllHosts(List.of(hosts))
        .build();
  }
}
