package dev.keel.service.cli;

import com.google.protobuf.util.JsonFormat;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.service.worker.KeelWorkerHost;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "status", mixinStandardHelpOptions = true, description = "Print a pipeline's stage and results as JSON.")
final class StatusCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Parameters(paramLabel = "PIPELINE_ID")
  String id;

  @Override
  public Integer call() throws Exception {
    String address = stack.temporalAddressOrNull() == null ? "127.0.0.1:7233" : stack.temporalAddressOrNull();
    WorkflowServiceStubs stubs = KeelWorkerHost.connect(address);
    try {
      System.out.println(JsonFormat.printer().preservingProtoFieldNames()
          .print(PipelineLauncher.progress(KeelWorkerHost.client(stubs, "default"), id)));
      return 0;
    } finally {
      stubs.shutdown();
    }
  }
}
