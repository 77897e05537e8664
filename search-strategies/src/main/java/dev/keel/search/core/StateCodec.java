package dev.keel.search.core;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ListValue;
import com.google.protobuf.NullValue;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * JSON for searcher state: plain fields of state classes (no getters), sorted properties and map
 * keys so the same state always gives the same bytes, protobuf {@link Value}s in their natural JSON
 * form. Doubles round-trip exactly (shortest repr).
 */
public final class StateCodec {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .visibility(PropertyAccessor.ALL, Visibility.NONE)
          .visibility(PropertyAccessor.FIELD, Visibility.ANY)
          .visibility(PropertyAccessor.CREATOR, Visibility.ANY)
          .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .addModule(
              new SimpleModule("protobuf-value")
                  .addSerializer(Value.class, new ValueSerializer())
                  .addDeserializer(Value.class, new ValueDeserializer()))
          .build();

  private StateCodec() {}

  public static JsonNode toTree(Object state) {
    return MAPPER.valueToTree(state);
  }

  public static <T> T fromTree(JsonNode node, Class<T> type) {
    try {
      return MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("bad searcher snapshot: " + e.getOriginalMessage(), e);
    }
  }

  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static JsonNode read(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("bad searcher snapshot: " + e.getOriginalMessage(), e);
    }
  }

  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  public static JsonNode valueToJson(Value v) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    return switch (v.getKindCase()) {
      case NUMBER_VALUE -> f.numberNode(v.getNumberValue());
      case STRING_VALUE -> f.textNode(v.getStringValue());
      case BOOL_VALUE -> f.booleanNode(v.getBoolValue());
      case LIST_VALUE -> {
        ArrayNode a = f.arrayNode();
        v.getListValue().getValuesList().forEach(e -> a.add(valueToJson(e)));
        yield a;
      }
      case STRUCT_VALUE -> {
        ObjectNode o = f.objectNode();
        new TreeMap<>(v.getStructValue().getFieldsMap())
            .forEach((k, e) -> o.set(k, valueToJson(e)));
        yield o;
      }
      case NULL_VALUE, KIND_NOT_SET -> f.nullNode();
    };
  }

  public static Value jsonToValue(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return Value.newBuilder().setNullValue(NullValue.NULL_VALUE).build();
    }
    if (n.isNumber()) {
      return Value.newBuilder().setNumberValue(n.doubleValue()).build();
    }
    if (n.isTextual()) {
      return Value.newBuilder().setStringValue(n.textValue()).build();
    }
    if (n.isBoolean()) {
      return Value.newBuilder().setBoolValue(n.booleanValue()).build();
    }
    if (n.isArray()) {
      ListValue.Builder l = ListValue.newBuilder();
      n.forEach(e -> l.addValues(jsonToValue(e)));
      return Value.newBuilder().setListValue(l).build();
    }
    Struct.Builder s = Struct.newBuilder();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      s.putFields(e.getKey(), jsonToValue(e.getValue()));
    }
    return Value.newBuilder().setStructValue(s).build();
  }

  private static final class ValueSerializer extends JsonSerializer<Value> {
    @Override
    public void serialize(Value value, JsonGenerator gen, SerializerProvider serializers)
        throws IOException {
      gen.writeTree(valueToJson(value));
    }
  }

  private static final class ValueDeserializer extends JsonDeserializer<Value> {
    @Override
    public Value deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return jsonToValue(p.readValueAsTree());
    }

    @Override
    public Value getNullValue(DeserializationContext ctxt) {
      return jsonToValue(null);
    }
  }
}
