package dev.keel.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An activity that works 3 s without heartbeating itself, under a 1 s heartbeat timeout: with a
 * {@link HeartbeatTicker} open it completes; without, the server declares the attempt dead.
 */
class HeartbeatTickerKeepsASilentActivityAliveTest {
  @ActivityInterface
  public interface Silent {
    String work(boolean ticking);
  }

  static final class SilentImpl implements Silent {
    @Override
    public String work(boolean ticking) {
      if (!ticking) {
        sleep();
        return "done";
      }
      try (HeartbeatTicker alive = HeartbeatTicker.start()) {
        sleep();
        return "done";
      }
    }

    private static void sleep() {
      try {
        Thread.sleep(3000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @WorkflowInterface
  public interface Caller {
    @WorkflowMethod
    String call(boolean ticking);
  }

  public static final class CallerImpl implements Caller {
    @Override
    public String call(boolean ticking) {
      return Workflow.newActivityStub(
              Silent.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofMinutes(1))
                  .setHeartbeatTimeout(Duration.ofSeconds(1))
                  .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                  .build())
          .work(ticking);
    }
  }

  private TestWorkflowEnvironment env;

  @BeforeEach
  void start() {
    // real time: the heartbeat timeout must run out while the activity really sleeps
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(false).build());
    Worker worker = env.newWorker("ticker");
    worker.registerWorkflowImplementationTypes(CallerImpl.class);
    worker.registerActivitiesImplementations(new SilentImpl());
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private Caller caller() {
    return env.getWorkflowClient()
        .newWorkflowStub(Caller.class, WorkflowOptions.newBuilder().setTaskQueue("ticker").build());
  }

  @Test
  void aTickingActivityOutlivesItsHeartbeatTimeout() {
    assertEquals("done", caller().call(true));
  }

  @Test
  void aSilentActivityIsDeclaredDeadAfterItsHeartbeatTimeout() {
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> caller().call(false));
    ActivityFailure activity = assertInstanceOf(ActivityFailure.class, e.getCause());
    TimeoutFailure timeout = assertInstanceOf(TimeoutFailure.class, activity.getCause());
    assertEquals(TimeoutType.TIMEOUT_TYPE_HEARTBEAT, timeout.getTimeoutType());
  }
}
