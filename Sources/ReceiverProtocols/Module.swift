/// Namespace placeholder for the `ReceiverProtocols` target; replaced as the target is built.
public enum ReceiverProtocolsModule {}
