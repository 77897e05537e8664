package dev.keel.service.pipeline;

import ai.djl.ndarray.types.Shape;
import com.google.protobuf.Value;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.SourceFormat;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.source.SourceFiles;
import dev.keel.gpu.model.DataShape;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.model.Task;
import dev.keel.service.experiment.ModelFileCheck;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * Refuses at submission a pipeline whose model cannot take what its local source gives, before any
 * stage runs: an image folder's first image (or its {@code image_size}), Fashion-MNIST's 28x28
 * images, or feature vectors of a CSV or Parquet source are offered to the model's own {@link
 * KeelModel#fitTo} check, the one every trial runs on the table. A TorchScript model's files are
 * read, each one its template can name ({@link ModelFileCheck}). A source on S3, or a model class
 * this process cannot load, is left to the trials, which fail the experiment with the same message.
 */
final class ModelFitCheck {
  /** The messages speak of the files a table will be made of, not of a table. */
  private static final String SOURCE = "source";

  private ModelFitCheck() {}

  static List<ConfigProblem> problems(PipelineRequest request) {
    if (request.hasReuse()
        && (request.getReuse().hasModel() || !request.getReuse().getExperimentId().isBlank())) {
      return List.of(); // the reused model is checked by the workflow against the table it uses
    }
    if (!request.getExperiment().getModel().getTorchscript().isBlank()) {
      return torchScript(request);
    }
    if (request.hasReuse() && request.getReuse().hasTable()) {
      return List.of(); // the reused table is checked by the workflow
    }
    try {
      Optional<DataShape> shape = shapeOf(request.getSource());
      if (shape.isEmpty()) {
        return List.of();
      }
      ModelSpec spec = request.getExperiment().getModel();
      if (!spec.getClass_().isBlank() && shape.get().kind() == DataShape.Kind.FEATURES) {
        return List
            .of(); // a user's model may need the feature count, which the source's header alone
        // does not fix
      }
      KeelModel model;
      try {
        model = ModelZoo.withBuiltIns().resolve(spec);
      } catch (InvalidFieldException e) {
        return spec.getClass_().isBlank()
            ? List.of(new ConfigProblem("experiment." + e.field(), e.problem()))
            : List.of(); // the workers' classpath may hold it
      }
      Hyperparameters hyperparameters;
      try {
        hyperparameters =
            Hyperparameters.resolve(model, spec.getParams().getFieldsMap(), constants(request));
      } catch (InvalidFieldException e) {
        return List.of(); // a hyperparameter problem, which the trials name with its path
      }
      model.fitTo(hyperparameters, shape.get());
      return List.of();
    } catch (InvalidFieldException e) {
      // a model that does not take the data, or a hyperparameter the data rules out
      return List.of(
          new ConfigProblem(
              e.field().equals("data") ? "experiment.model" : "experiment." + e.field(),
              e.problem()));
    } catch (IOException | RuntimeException | LinkageError e) {
      // not readable here (or no DJL in this process): the ingest and the trials report it
      return List.of();
    }
  }

  /**
   * A TorchScript model: each file its template names must be there and be TorchScript, and take
   * the source's examples where they are known (a CSV or Parquet source only where it names its
   * feature columns; a reused table's shape is the workflow's to check). {@link ModelFileCheck}
   * tells file problems, which are the user's, from an engine this process cannot load.
   */
  private static List<ConfigProblem> torchScript(PipelineRequest request) {
    Optional<DataShape> shape;
    if (request.hasReuse() && request.getReuse().hasTable()) {
      shape = Optional.empty();
    } else {
      try {
        shape =
            shapeOf(request.getSource())
                .filter(
                    s ->
                        s.kind() != DataShape.Kind.FEATURES
                            || request.getSource().getFeatureColumnsCount() > 0);
      } catch (IOException | RuntimeException e) {
        shape = Optional.empty(); // the ingest names an unreadable source
      }
    }
    return ModelFileCheck.problems(request.getExperiment(), "experiment.", shape);
  }

  /** What one example of the source is; empty where the source alone cannot tell. */
  private static Optional<DataShape> shapeOf(DataSource source) throws IOException {
    String uri = source.getUri().strip();
    Optional<SourceFormat> format = SourceFormat.of(source.getFormat());
    if (format.isEmpty()) {
      return Optional.empty();
    }
    switch (format.get()) {
      case FASHION_MNIST:
        return Optional.of(
            images(
                uri.isEmpty() ? IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR : uri,
                1,
                28,
                28,
                10));
      case IMAGE_FOLDER:
        return uri.isEmpty() || uri.startsWith("s3://")
            ? Optional.empty()
            : imageFolder(
                uri,
                source.getImageSize(),
                source.getImageMode() == DataSource.ImageMode.rgb ? 3 : 1);
      case CSV:
      case PARQUET:
        // only the kind is known before the ETL, not the feature count of an unnamed list nor the
        // classes (2 classes stand for "some", which every classifier takes)
        int features = Math.max(1, source.getFeatureColumnsCount());
        // a regression source's model has one output, a multilabel one an output per label
        // column, a classifier at least two
        Task task =
            switch (source.getTask()) {
              case regression -> Task.REGRESSION;
              case multilabel -> Task.MULTILABEL;
              default -> Task.CLASSIFICATION;
            };
        int outputs =
            switch (task) {
              case REGRESSION -> 1;
              case MULTILABEL -> Math.max(1, source.getLabelColumnsCount());
              case CLASSIFICATION -> 2;
            };
        return Optional.of(
            new DataShape(
                uri,
                DataShape.Kind.FEATURES,
                "feature vectors",
                new Shape(features),
                outputs,
                SOURCE,
                task));
      default:
        return Optional.empty();
    }
  }

  /**
   * The shape the ingest will write: {@code image_size}, else the first image's size in path order.
   */
  private static Optional<DataShape> imageFolder(String uri, String imageSize, int channels)
      throws IOException {
    if (!Files.isDirectory(SourceFiles.localPath(uri))) {
      return Optional.empty();
    }
    List<SourceFiles.Entry> files;
    try (SourceFiles listed = SourceFiles.open(uri)) { // the files the ingest reads, in its order
      files = listed.files();
    }
    boolean splitLayout =
        !files.isEmpty()
            && files.stream()
                .allMatch(
                    f -> {
                      String[] parts = f.relative().split("/");
                      return parts.length == 3 && Splits.known(parts[0]);
                    });
    int depth = splitLayout ? 3 : 2;
    TreeSet<String> classes = new TreeSet<>();
    SourceFiles.Entry first = null;
    for (SourceFiles.Entry f : files) {
      String[] parts = f.relative().split("/");
      if (parts.length == depth) {
        classes.add(parts[depth - 2]);
        first = first == null ? f : first;
      }
    }
    if (first == null) {
      return Optional.empty();
    }
    String where = uri;
    if (imageSize.matches("\\d+x\\d+")) {
      String[] hw = imageSize.split("x");
      return Optional.of(
          images(
              where + " (image_size " + imageSize + ")",
              channels,
              Integer.parseInt(hw[0]),
              Integer.parseInt(hw[1]),
              classes.size()));
    }
    BufferedImage image = ImageIO.read(first.path().toFile());
    if (image == null) {
      return Optional.empty(); // the ingest names an undecodable image
    }
    return Optional.of(
        images(
            where + " (first image " + first.relative() + ")",
            channels,
            image.getHeight(),
            image.getWidth(),
            classes.size()));
  }

  private static DataShape images(String where, int channels, int height, int width, int classes) {
    return new DataShape(
        where,
        DataShape.Kind.IMAGES,
        height + "x" + width + (channels == 3 ? " rgb" : "") + " images",
        new Shape(channels, height, width),
        classes,
        SOURCE);
  }

  /**
   * The experiment's constant hyperparameters: what every trial sets, e.g. a model's input size.
   */
  private static Map<String, Value> constants(PipelineRequest request) {
    Map<String, Value> out = new TreeMap<>();
    for (Map.Entry<String, Hyperparameter> e :
        request.getExperiment().getHyperparametersMap().entrySet()) {
      if ("const".equals(e.getValue().getType())) {
        out.put(e.getKey(), e.getValue().getVal());
      }
    }
    return out;
  }
}
