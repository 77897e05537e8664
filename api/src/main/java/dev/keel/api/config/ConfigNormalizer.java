package dev.keel.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.keel.api.v1.Hyperparameter;

/**
 * Determined's YAML shorthands that protobuf JSON lacks: a bare hyperparameter value ({@code
 * batch_size: 64}) is a const. Applied wherever a hyperparameter map appears.
 */
final class ConfigNormalizer {
  private ConfigNormalizer() {}

  static JsonNode normalize(JsonNode node, Descriptor type) {
    if (!(node instanceof ObjectNode object)) {
      return node;
    }
    for (FieldDescriptor f : type.getFields()) {
      JsonNode child =
          object.has(f.getName()) ? object.get(f.getName()) : object.get(f.getJsonName());
      if (child == null || f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.isMapField()
          && isHyperparameter(f.getMessageType().findFieldByName("value"))
          && child instanceof ObjectNode hps) {
        hps.fields()
            .forEachRemaining(
                e -> {
                  if (!e.getValue().isObject()) {
                    ObjectNode constant = JsonNodeFactory.instance.objectNode();
                    constant.put("type", "const");
                    constant.set("val", e.getValue());
                    e.setValue(constant);
                  }
                });
      } else if (!f.isRepeated()
          && !f.getMessageType().getFullName().startsWith("google.protobuf.")) {
        normalize(child, f.getMessageType());
      }
    }
    return node;
  }

  private static boolean isHyperparameter(FieldDescriptor valueField) {
    return valueField != null
        && valueField.getJavaType() == FieldDescriptor.JavaType.MESSAGE
        && valueField.getMessageType().equals(Hyperparameter.getDescriptor());
  }
}
