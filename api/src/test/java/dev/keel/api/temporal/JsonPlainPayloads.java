package dev.keel.api.temporal;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import java.util.Optional;

/** Payloads as {@code temporal workflow start --input '{...}'} sends them: {@code json/plain}. */
public final class JsonPlainPayloads {
  private JsonPlainPayloads() {}

  public static Optional<Payloads> of(String json) {
    return Optional.of(
        Payloads.newBuilder()
            .addPayloads(
                Payload.newBuilder()
                    .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
                    .setData(ByteString.copyFromUtf8(json)))
            .build());
  }

  /** Reads {@code json} into {@code type} through Keel's data converter. */
  public static <T> T read(String json, Class<T> type) {
    return KeelDataConverter.get().fromPayloads(0, of(json), type, type);
  }
}
