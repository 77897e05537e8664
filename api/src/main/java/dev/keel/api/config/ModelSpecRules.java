package dev.keel.api.config;

import dev.keel.api.model.ModelFileTemplate;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ModelSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** What {@code model} must say on its own: one kind of model, and a TorchScript file's options. */
final class ModelSpecRules {
  private ModelSpecRules() {}

  static void check(ExperimentConfig c, String path, Problems problems) {
    ModelSpec m = c.getModel();
    List<String> kinds = new ArrayList<>();
    if (!m.getName().isBlank()) {
      kinds.add("name");
    }
    if (!m.getClass_().isBlank()) {
      kinds.add("class");
    }
    if (!m.getTorchscript().isBlank()) {
      kinds.add("torchscript");
    }
    if (kinds.size() > 1) {
      problems.add(
          path, "set one of name, class or torchscript, not " + String.join(" and ", kinds));
    }
    if (!m.getTorchscriptFile().isEmpty() || !m.getTorchscriptSha256().isEmpty()) {
      problems.add(
          Problems.at(
              path, m.getTorchscriptFile().isEmpty() ? "torchscript_sha256" : "torchscript_file"),
          "is set by Keel when a trial loads the file; leave it out");
    }
    if (m.getTorchscript().isBlank()) {
      if (m.getInit() != ModelSpec.Init.INIT_UNSPECIFIED) {
        problems.add(Problems.at(path, "init"), "applies to a model.torchscript file only");
      }
      if (m.getFreezeCount() > 0) {
        problems.add(Problems.at(path, "freeze"), "applies to a model.torchscript file only");
      }
      return;
    }
    for (int i = 0; i < m.getFreezeCount(); i++) {
      if (m.getFreeze(i).isBlank()) {
        problems.add(Problems.at(path, "freeze") + "[" + i + "]", "must name a parameter prefix");
      }
    }
    String field = Problems.at(path, "torchscript");
    ModelFileTemplate.problem(m.getTorchscript()).ifPresent(p -> problems.add(field, p));
    if (ModelFileTemplate.problem(m.getTorchscript()).isPresent()) {
      return;
    }
    Set<String> known = new TreeSet<>(c.getHyperparametersMap().keySet());
    known.addAll(m.getParams().getFieldsMap().keySet());
    for (String name : ModelFileTemplate.of(m.getTorchscript()).placeholders()) {
      if (!known.contains(name)) {
        problems.add(
            field,
            "names {"
                + name
                + "}, which neither hyperparameters nor model.params sets"
                + (known.isEmpty() ? "" : " (they set: " + String.join(", ", known) + ")"));
      }
    }
  }
}
