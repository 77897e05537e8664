package dev.keel.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks a JSON tree against a protobuf message descriptor before parsing, so that every unknown
 * field and wrong type is reported with its path (protobuf's own parser stops at the first).
 */
final class ProtoShapeChecker {

  private ProtoShapeChecker() {}

  static void check(JsonNode node, Descriptor type, String path, Problems problems) {
    if (isWellKnown(type)) {
      checkWellKnown(node, type, path, problems);
      return;
    }
    if (!node.isObject()) {
      problems.add(path, "expected an object, got " + describe(node));
      return;
    }
    Map<String, FieldDescriptor> byName = new HashMap<>();
    for (FieldDescriptor f : type.getFields()) {
      byName.put(f.getName(), f);
      byName.put(f.getJsonName(), f);
    }
    Map<OneofDescriptor, List<String>> oneofsSet = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String fieldPath = Problems.at(path, e.getKey());
      FieldDescriptor field = byName.get(e.getKey());
      if (field == null) {
        problems.add(fieldPath, "unknown field (expected one of " + fieldNames(type) + ")");
        continue;
      }
      if (e.getValue().isNull()) {
        continue;
      }
      if (field.getJavaType() == FieldDescriptor.JavaType.ENUM
          && !field.isRepeated()
          && !isEnumWord(e.getValue(), field)) {
        // dropped, so the rest still parses and the semantic rules report their problems too
        problems.addDropped(fieldPath, enumProblem(e.getValue(), field));
        it.remove();
        continue;
      }
      OneofDescriptor oneof = field.getRealContainingOneof();
      if (oneof != null) {
        oneofsSet.computeIfAbsent(oneof, o -> new ArrayList<>()).add(field.getName());
      }
      checkField(e.getValue(), field, fieldPath, problems);
    }
    oneofsSet.forEach(
        (oneof, set) -> {
          if (set.size() > 1) {
            problems.add(
                path,
                "set only one of "
                    + oneof.getFields().stream()
                        .map(FieldDescriptor::getName)
                        .collect(Collectors.joining("|"))
                    + ", got "
                    + String.join(" and ", set));
          }
        });
  }

  private static void checkField(
      JsonNode value, FieldDescriptor field, String path, Problems problems) {
    if (field.isMapField()) {
      if (!value.isObject()) {
        problems.add(path, "expected a map, got " + describe(value));
        return;
      }
      FieldDescriptor valueField = field.getMessageType().findFieldByName("value");
      value
          .fields()
          .forEachRemaining(
              e -> checkSingle(e.getValue(), valueField, Problems.at(path, e.getKey()), problems));
      return;
    }
    if (field.isRepeated()) {
      if (!value.isArray()) {
        problems.add(path, "expected a list, got " + describe(value));
        return;
      }
      for (int i = 0; i < value.size(); i++) {
        checkSingle(value.get(i), field, path + "[" + i + "]", problems);
      }
      return;
    }
    checkSingle(value, field, path, problems);
  }

  private static void checkSingle(
      JsonNode value, FieldDescriptor field, String path, Problems problems) {
    switch (field.getJavaType()) {
      case MESSAGE -> check(value, field.getMessageType(), path, problems);
      case STRING -> {
        if (!value.isTextual()) {
          problems.add(path, "expected a string, got " + describe(value));
        }
      }
      case BOOLEAN -> {
        if (!value.isBoolean()) {
          problems.add(path, "expected true or false, got " + describe(value));
        }
      }
      case INT, LONG -> {
        BigDecimal number = number(value);
        if (number == null || number.stripTrailingZeros().scale() > 0) {
          problems.add(path, "expected an integer, got " + describe(value));
        } else if (field.getJavaType() == FieldDescriptor.JavaType.INT
            && (number.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) < 0
                || number.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0)) {
          problems.add(path, "integer out of range, got " + value.asText());
        }
      }
      case FLOAT, DOUBLE -> {
        if (number(value) == null
            && !(value.isTextual() && value.asText().matches("NaN|-?Infinity"))) {
          problems.add(path, "expected a number, got " + describe(value));
        }
      }
      case ENUM -> {
        if (!isEnumWord(value, field)) {
          problems.add(path, enumProblem(value, field));
        }
      }
      case BYTE_STRING -> {
        if (!value.isTextual()) {
          problems.add(path, "expected base64 text, got " + describe(value));
        }
      }
      default -> {}
    }
  }

  private static BigDecimal number(JsonNode value) {
    if (value.isNumber()) {
      return value.decimalValue();
    }
    if (value.isTextual()) {
      try {
        return new BigDecimal(value.asText().trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** A value's name; the zero value stands for "not set", so its name is as wrong as any word. */
  private static boolean isEnumWord(JsonNode value, FieldDescriptor field) {
    EnumValueDescriptor named =
        value.isTextual() ? field.getEnumType().findValueByName(value.asText()) : null;
    return named != null && named.getNumber() != 0;
  }

  private static String enumProblem(JsonNode value, FieldDescriptor field) {
    return (value.isTextual()
            ? "unknown value '" + value.asText() + "'"
            : "expected a name, got " + describe(value))
        + " (expected "
        + EnumNames.expected(field.getEnumType())
        + ")";
  }

  private static boolean isWellKnown(Descriptor type) {
    return type.getFullName().startsWith("google.protobuf.");
  }

  private static void checkWellKnown(
      JsonNode node, Descriptor type, String path, Problems problems) {
    switch (type.getFullName()) {
      case "google.protobuf.Struct" -> {
        if (!node.isObject()) {
          problems.add(path, "expected an object, got " + describe(node));
        }
      }
      case "google.protobuf.ListValue" -> {
        if (!node.isArray()) {
          problems.add(path, "expected a list, got " + describe(node));
        }
      }
      default -> {}
    }
  }

  private static String fieldNames(Descriptor type) {
    return type.getFields().stream()
        .map(FieldDescriptor::getName)
        .collect(Collectors.joining(", "));
  }

  static String describe(JsonNode node) {
    if (node.isTextual()) {
      return "'" + node.asText() + "'";
    }
    if (node.isObject()) {
      return "an object";
    }
    if (node.isArray()) {
      return "a list";
    }
    return node.toString();
  }
}
