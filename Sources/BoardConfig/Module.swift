/// Namespace placeholder for the `BoardConfig` target; replaced as the target is built.
public enum BoardConfigModule {}
