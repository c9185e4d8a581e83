/// Namespace placeholder for the `PowerPolicy` target; replaced as the target is built.
public enum PowerPolicyModule {}
