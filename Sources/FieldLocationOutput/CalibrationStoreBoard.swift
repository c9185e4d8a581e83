import BoardConfig
import Heading

extension CalibrationStore {
    /// The stored calibration of `board`'s magnetometer, with when it was made and its file;
    /// `nil` when the board has no magnetometer or nothing is stored for it. Throws when a stored
    /// file cannot be used (naming the file and key).
    public func calibration(for board: BoardDescription) throws(CalibrationFileError)
        -> (calibration: MagnetometerCalibration, created: String?, path: String)?
    {
        guard let magnetometer = board.magnetometer else { return nil }
        let sensor = magnetometer.chip.rawValue
        guard let stored = try load(board: board.name, sensor: sensor) else { return nil }
        let file = path(board: board.name, sensor: sensor)
        return (try stored.calibration(file: file), stored.created, file)
    }
}
