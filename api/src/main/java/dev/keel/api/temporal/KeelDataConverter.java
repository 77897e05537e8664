package dev.keel.api.temporal;

import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;

/**
 * Temporal's default converter with protobuf-aware {@code json/plain}: Keel's messages arrive as
 * {@code json/plain} (Temporal CLI, Python dicts), {@code json/protobuf} or {@code binary/protobuf}
 * (typed SDK clients) and leave as {@code json/protobuf}.
 */
public final class KeelDataConverter {
  private static final DataConverter INSTANCE =
      DefaultDataConverter.newDefaultInstance()
          .withPayloadConverterOverrides(new ProtoAwareJsonPlainPayloadConverter());

  private KeelDataConverter() {}

  public static DataConverter get() {
    return INSTANCE;
  }
}
