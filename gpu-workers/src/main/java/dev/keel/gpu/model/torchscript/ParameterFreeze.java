package dev.keel.gpu.model.torchscript;

import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.gpu.model.InvalidFieldException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code model.freeze}: parameters whose names start with a listed prefix keep their values. A
 * prefix that matches nothing is a typo, and a model left with nothing to train is refused.
 */
final class ParameterFreeze {
  private ParameterFreeze() {}

  static void apply(Block block, List<String> prefixes, String file) {
    List<String> names = new ArrayList<>();
    for (Pair<String, Parameter> p : block.getParameters()) {
      names.add(p.getKey());
    }
    if (names.isEmpty()) {
      throw new InvalidFieldException(TorchScriptModel.FIELD, file + " has no parameters to train");
    }
    for (int i = 0; i < prefixes.size(); i++) {
      String prefix = prefixes.get(i);
      if (names.stream().noneMatch(n -> n.startsWith(prefix))) {
        throw new InvalidFieldException(
            "model.freeze[" + i + "]",
            "'"
                + prefix
                + "' matches no parameter of "
                + file
                + " (its parameters: "
                + list(names)
                + ")");
      }
    }
    int trainable = 0;
    for (Pair<String, Parameter> p : block.getParameters()) {
      boolean frozen = prefixes.stream().anyMatch(prefix -> p.getKey().startsWith(prefix));
      p.getValue().freeze(frozen);
      trainable += frozen ? 0 : 1;
    }
    if (trainable == 0) {
      throw new InvalidFieldException(
          "model.freeze", "freezes every parameter of " + file + ", so nothing would train");
    }
  }

  private static String list(List<String> names) {
    return names.size() <= 12
        ? String.join(", ", names)
        : String.join(", ", names.subList(0, 12)) + ", … " + (names.size() - 12) + " more";
  }
}
