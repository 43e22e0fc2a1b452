import Foundation

/// Figures over repeated runs; printed as JSON lines (value = median) and a human line each.
struct Results {
    struct Figure {
        var name: String
        var unit: String
        var target: Double?
        var higherIsBetter: Bool
        var values: [Double]
    }
    var figures: [Figure] = []

    mutating func add(_ name: String, _ value: Double, unit: String, target: Double?, higherIsBetter: Bool) {
        if let i = figures.firstIndex(where: { $0.name == name }) {
            figures[i].values.append(value)
        } else {
            figures.append(Figure(name: name, unit: unit, target: target, higherIsBetter: higherIsBetter, values: [value]))
        }
    }

    func print() {
        for figure in figures {
            let sorted = figure.values.sorted()
            let median = sorted[sorted.count / 2]
            var object: [String: Any] = [
                "figure": figure.name, "value": median, "unit": figure.unit, "min": sorted.first!, "median": median,
                "max": sorted.last!, "runs": figure.values, "higher_is_better": figure.higherIsBetter,
            ]
            if let target = figure.target {
                object["target"] = target
                object["met"] = figure.higherIsBetter ? median >= target : median <= target
            } else {
                object["target"] = NSNull()
            }
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            Swift.print(String(decoding: data, as: UTF8.self))
            let met = figure.target.map { t in (figure.higherIsBetter ? median >= t : median <= t) ? "met" : "NOT met" } ?? ""
            Swift.print("# \(figure.name): min \(fmt(sorted.first!)) median \(fmt(median)) max \(fmt(sorted.last!)) \(figure.unit) \(figure.target.map { "target \(fmt($0)) " } ?? "")\(met)")
        }
    }
}
