package dev.keel.workflows;

import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.failure.v1.Failure;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.payload.context.SerializationContext;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.lang.reflect.Type;
import java.util.Optional;

/**
 * A worker's data converter that marks a {@code Pipeline} run whose input it cannot decode with
 * {@code KeelStage = 'failed'} before the run fails. The SDK decodes a workflow's arguments before
 * any workflow code or interceptor runs, so without this such a run (a typo in a {@code temporal
 * workflow start --input}) ended with no stage at all, and {@code KeelStage = 'failed'} missed it.
 * The mark is a command of the workflow's own thread, so replaying the run decides it again the
 * same way.
 */
public final class RejectedInputMarksThePipeline implements DataConverter {
  private final DataConverter delegate;

  public RejectedInputMarksThePipeline(DataConverter delegate) {
    this.delegate = delegate;
  }

  @Override
  public <T> Optional<Payload> toPayload(T value) throws DataConverterException {
    return delegate.toPayload(value);
  }

  @Override
  public <T> T fromPayload(Payload payload, Class<T> valueClass, Type valueType)
      throws DataConverterException {
    try {
      return delegate.fromPayload(payload, valueClass, valueType);
    } catch (DataConverterException e) {
      throw marked(e);
    }
  }

  @Override
  public Optional<Payloads> toPayloads(Object... values) throws DataConverterException {
    return delegate.toPayloads(values);
  }

  @Override
  public <T> T fromPayloads(
      int index, Optional<Payloads> content, Class<T> valueType, Type valueGenericType)
      throws DataConverterException {
    try {
      return delegate.fromPayloads(index, content, valueType, valueGenericType);
    } catch (DataConverterException e) {
      throw marked(e);
    }
  }

  @Override
  public Object[] fromPayloads(
      Optional<Payloads> content, Class<?>[] parameterTypes, Type[] genericParameterTypes)
      throws DataConverterException {
    try {
      return delegate.fromPayloads(content, parameterTypes, genericParameterTypes);
    } catch (DataConverterException e) {
      throw marked(e);
    }
  }

  @Override
  public RuntimeException failureToException(Failure failure) {
    return delegate.failureToException(failure);
  }

  @Override
  public Failure exceptionToFailure(Throwable throwable) {
    return delegate.exceptionToFailure(throwable);
  }

  @Override
  public DataConverter withContext(SerializationContext context) {
    return new RejectedInputMarksThePipeline(delegate.withContext(context));
  }

  /**
   * On a Pipeline's workflow thread, sets the failed stage (the run fails on this exception: see
   * {@link KeelWorkflows#options}); elsewhere (clients, activities) changes nothing.
   */
  private static DataConverterException marked(DataConverterException e) {
    if (WorkflowUnsafe.isWorkflowThread()
        && PipelineWorkflow.TYPE.equals(Workflow.getInfo().getWorkflowType())) {
      Workflow.upsertTypedSearchAttributes(KeelSearchAttributes.STAGE.valueSet("failed"));
    }
    return e;
  }
}
