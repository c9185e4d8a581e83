/// Namespace placeholder for the `HardwareInterfaces` target; replaced as the target is built.
public enum HardwareInterfacesModule {}
