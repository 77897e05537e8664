#!/usr/bin/env python3
"""Start Keel's pipeline from Python, as another service would, and print its result.

The request is a typed protobuf message (classes generated from Keel's .proto files with
grpcio-tools); Temporal's Python SDK sends it as `json/protobuf`, which Keel's data converter reads.

    pip install -r examples/python/requirements.txt
    python examples/python/start_pipeline.py --address 127.0.0.1:7233 --batches 200

Needs a running Keel (`./keel dev`). The generated classes go to examples/python/generated/
(git-ignored) and are regenerated when the .proto files change.
"""
import argparse
import asyncio
import glob
import importlib
import os
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.join(HERE, "..", "..", "api", "src", "main", "proto")
GENERATED = os.path.join(HERE, "generated")


def generate_classes():
    """Compile api/src/main/proto/keel/v1/*.proto into GENERATED when missing or stale."""
    from grpc_tools import protoc
    import grpc_tools

    protos = sorted(glob.glob(os.path.join(PROTO_ROOT, "keel", "v1", "*.proto")))
    if not protos:
        sys.exit(f"start_pipeline: no .proto files under {PROTO_ROOT}")
    stamp = os.path.join(GENERATED, ".stamp")
    newest = max(os.path.getmtime(p) for p in protos)
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < newest:
        os.makedirs(GENERATED, exist_ok=True)
        well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
        rc = protoc.main(["protoc", f"-I{PROTO_ROOT}", f"-I{well_known}", f"--python_out={GENERATED}", *protos])
        if rc != 0:
            sys.exit(f"start_pipeline: protoc failed ({rc})")
        with open(stamp, "w") as f:
            f.write(str(time.time()))
    sys.path.insert(0, GENERATED)
    return importlib.import_module("keel.v1.pipeline_pb2"), importlib.import_module("keel.v1.experiment_pb2")


def build_request(pipeline_pb2, experiment_pb2, args):
    from google.protobuf import struct_pb2

    def const(v):
        return experiment_pb2.Hyperparameter(type="const", val=struct_pb2.Value(**v))

    return pipeline_pb2.PipelineRequest(
        name=args.name,
        source=pipeline_pb2.DataSource(format="fashion_mnist", uri=args.data),
        target_table="fashion_mnist",
        experiment=experiment_pb2.ExperimentConfig(
            name="fashion-cnn-from-python",
            hyperparameters={
                "lr": const({"number_value": 0.002}),
                "batch_size": const({"number_value": 128}),
                "width": const({"number_value": 16}),
                "optimizer": const({"string_value": "adam"}),
            },
            searcher=experiment_pb2.SearcherConfig(
                name="single", metric="validation_accuracy",
                max_length=experiment_pb2.Length(batches=args.batches)),
            min_checkpoint_period=experiment_pb2.Length(batches=max(1, args.batches // 2)),
            reproducibility=experiment_pb2.Reproducibility(seed=7),
            model=experiment_pb2.ModelSpec(name="fashion_cnn"),
        ),
        inference=pipeline_pb2.InferenceTarget(predictions_table="fashion_mnist_predictions_python", split="test"),
    )


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233"))
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--name", default="fashion-mnist-python")
    parser.add_argument("--workflow-id", default=None)
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for the result")
    args = parser.parse_args()

    pipeline_pb2, experiment_pb2 = generate_classes()
    from temporalio.client import Client

    request = build_request(pipeline_pb2, experiment_pb2, args)
    client = await Client.connect(args.address, namespace=args.namespace)
    workflow_id = args.workflow_id or f"pipeline-{args.name}-{uuid.uuid4().hex[:8]}"
    handle = await client.start_workflow(
        "Pipeline", request, id=workflow_id, task_queue="keel-control",
        result_type=pipeline_pb2.PipelineResult,
        static_summary=f"Keel pipeline {args.name}, started from Python",
    )
    print(f"Started pipeline {workflow_id} (run {handle.result_run_id})", flush=True)
    result = await asyncio.wait_for(handle.result(), timeout=args.timeout)
    print(f"test accuracy {result.inference.accuracy:.4f} on {result.inference.rows} rows")
    print(f"  data table:        {result.data.uri} @ version {result.data.version}")
    print(f"  model:             {result.model.name} v{result.model.version} ({result.model.stage})")
    print(f"  checkpoint:        {result.checkpoint.uri} ({result.checkpoint.batches} batches)")
    print(f"  predictions table: {result.inference.predictions.uri} @ version {result.inference.predictions.version}")


if __name__ == "__main__":
    asyncio.run(main())
    # temporalio's native runtime can abort during interpreter finalization ("PyGILState_Release:
    # thread state ... must be current") after all the work is done; leave without finalizing.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
