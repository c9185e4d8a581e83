/// Namespace placeholder for the `Heading` target; replaced as the target is built.
public enum HeadingModule {}
