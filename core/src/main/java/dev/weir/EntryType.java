package dev.weir;

/** Direction of a guarded call. System rules apply to {@link #IN} entries only. */
public enum EntryType {
  /** Inbound traffic: a request this application serves. */
  IN,
  /** Outbound traffic or internal work: a call this application makes. */
  OUT
}
