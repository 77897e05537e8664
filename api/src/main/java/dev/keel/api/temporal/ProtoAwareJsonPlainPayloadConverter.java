package dev.keel.api.temporal;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.ProtoConfigLoader;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.common.converter.PayloadConverter;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code json/plain} — what {@code temporal workflow start --input '{...}'} sends — read into
 * Keel's protobuf messages with protobuf's JSON mapping. Jackson cannot build protobuf messages, so
 * without this a CLI-started workflow fails its first task forever. Non-protobuf types go to
 * Jackson as before. Unknown fields and wrong types are reported with their field paths.
 */
public final class ProtoAwareJsonPlainPayloadConverter implements PayloadConverter {
  static final String JSON_PLAIN = "json/plain";
  private static final Map<Class<?>, ProtoConfigLoader<?>> LOADERS = new ConcurrentHashMap<>();
  private final JacksonJsonPayloadConverter jackson = new JacksonJsonPayloadConverter();

  @Override
  public String getEncodingType() {
    return JSON_PLAIN;
  }

  @Override
  public Optional<Payload> toData(Object value) throws DataConverterException {
    if (value instanceof Message message) {
      try {
        String json = JsonFormat.printer().preservingProtoFieldNames().print(message);
        return Optional.of(
            Payload.newBuilder()
                .putMetadata("encoding", ByteString.copyFromUtf8(JSON_PLAIN))
                .setData(ByteString.copyFromUtf8(json))
                .build());
      } catch (InvalidProtocolBufferException e) {
        throw new DataConverterException(e);
      }
    }
    return jackson.toData(value);
  }

  @Override
  public <T> T fromData(Payload content, Class<T> valueType, Type valueGenericType)
      throws DataConverterException {
    if (Message.class.isAssignableFrom(valueType)) {
      String json = content.getData().toString(StandardCharsets.UTF_8);
      try {
        return valueType.cast(loader(valueType).fromJson(json));
      } catch (ConfigValidationException e) {
        throw new DataConverterException(e.getMessage(), e);
      }
    }
    return jackson.fromData(content, valueType, valueGenericType);
  }

  private static ProtoConfigLoader<?> loader(Class<?> type) {
    return LOADERS.computeIfAbsent(
        type,
        t ->
            new ProtoConfigLoader<Message>(
                t.getSimpleName() + " (json/plain)", builderOf(t), m -> List.of()));
  }

  private static Supplier<Message.Builder> builderOf(Class<?> type) {
    return () -> {
      try {
        return (Message.Builder) type.getMethod("newBuilder").invoke(null);
      } catch (ReflectiveOperationException e) {
        throw new DataConverterException("cannot build " + type.getName() + ": " + e, e);
      }
    };
  }
}
