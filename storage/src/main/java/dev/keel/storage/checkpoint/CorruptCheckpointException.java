package dev.keel.storage.checkpoint;

/** A checkpoint that is partial, corrupt or unreadable; names the checkpoint and the file. */
public class CorruptCheckpointException extends RuntimeException {
  private final String location;
  private final String file;

  public CorruptCheckpointException(String location, String file, String problem) {
    this(location, file, problem, null);
  }

  public CorruptCheckpointException(String location, String file, String problem, Throwable cause) {
    super("checkpoint " + location + ": " + file + ": " + problem, cause);
    this.location = location;
    this.file = file;
  }

  public String location() {
    return location;
  }

  /** The offending file, relative to the checkpoint directory. */
  public String file() {
    return file;
  }
}
