package dev.keel.workflows.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.TableShape;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableShapeMatchNamesWhatDiffersTest {
  private static final TableShape FASHION =
      TableShape.newBuilder()
          .setKind("images")
          .setExample("28x28")
          .setClasses("T-shirt/top,Trouser,Pullover,Dress,Coat,Sandal,Shirt,Sneaker,Bag,Ankle boot")
          .build();

  @Test
  void anotherVersionOfTheSameSchemaFits() {
    assertEquals(Optional.empty(), TableShapeMatch.mismatch(FASHION, FASHION.toBuilder().build()));
    // a table that names no classes is not refused for that
    assertEquals(
        Optional.empty(),
        TableShapeMatch.mismatch(FASHION, FASHION.toBuilder().clearClasses().build()));
  }

  @Test
  void anotherImageSizeOrOtherClassesAreNamed() {
    assertEquals(
        Optional.of("it holds 32x32 images of 10 classes"),
        TableShapeMatch.mismatch(FASHION, FASHION.toBuilder().setExample("32x32").build()));
    assertEquals(
        Optional.of(
            "its classes are [cat, dog], not [T-shirt/top, Trouser, Pullover, Dress, Coat, Sandal, Shirt, "
                + "Sneaker, Bag, Ankle boot]"),
        TableShapeMatch.mismatch(FASHION, FASHION.toBuilder().setClasses("cat,dog").build()));
  }

  @Test
  void aSourceFormatOfTheOtherKindIsRefusedBeforeItsEtl() {
    assertEquals(
        Optional.of("a csv source gives features"),
        TableShapeMatch.formatMismatch(FASHION, DataSource.Format.csv));
    assertEquals(
        Optional.empty(), TableShapeMatch.formatMismatch(FASHION, DataSource.Format.image_folder));
    assertEquals(
        "columns [otherid, x]",
        TableShapeMatch.describe(TableShape.newBuilder().setKind("otherid,x").build()));
  }
}
