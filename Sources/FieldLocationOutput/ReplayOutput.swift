import EnginePlatforms
import FieldLocation
import NMEA

extension LogReplay {
    /// What `fieldloc replay` prints for each fix: with `json`, the fix's JSON line (``FixJSON``)
    /// unless it has no date yet and `includeUndated` is false; otherwise its ``FixText`` line.
    /// Lines go into `writer`, which hands them on in large blocks.
    ///
    /// With a ``speed``, `sleep` is called with the seconds to wait between fixes. The caller calls
    /// ``FixJSONWriter/flush()`` at the end. Returns the stream for its counters.
    @discardableResult
    public func print(to writer: FixJSONWriter, json: Bool, includeUndated: Bool = false,
                      sleep: (Double) -> Void = { _ in }) throws(ReplayError) -> NMEAStream {
        try run(sleep: sleep) { fix in
            if json {
                if fix.time != nil || includeUndated { writer.write(fix) }
            } else {
                writer.write(line: FixText.line(fix))
            }
        }
    }
}
