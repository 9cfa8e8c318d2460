@testable import BraidConfig
import Foundation
import Testing
import Yams

/// The systemd units start the services and stop them gracefully.
@Suite("systemd units")
struct SystemdUnitTests {
    @Test func systemdUnitsStartTheServicesAndStopGracefully() throws {
        let units = ["braid-gateway.service": "gateway", "braid-worker@.service": "worker"]
        for (unit, command) in units {
            let settings = try Deploy.unit("Deploy/systemd/\(unit)")
            let exec = try #require(settings["ExecStart"]?.first, "\(unit)")
            #expect(exec.contains("braid \(command)"), "\(unit): \(exec)")
            #expect(exec.contains("--config "), "\(unit)")
            #expect(settings["KillSignal"] == ["SIGTERM"], "\(unit)")
            let timeout = try #require(settings["TimeoutStopSec"]?.first.flatMap { Int($0) }, "\(unit): TimeoutStopSec in seconds")
            #expect(timeout >= 30, "\(unit): below the 30 s drain budget")
            #expect(settings["Restart"]?.first.map { ["always", "on-failure"].contains($0) } == true, "\(unit)")
            for file in settings["EnvironmentFile", default: []] {
                let name = (file.hasPrefix("-") ? String(file.dropFirst()) : file).split(separator: "/").last.map(String.init) ?? ""
                let optional = file.hasPrefix("-")
                let shipped = FileManager.default.fileExists(atPath: Deploy.root.appendingPathComponent("Deploy/systemd/\(name)").path)
                #expect(optional || shipped, "\(unit) requires \(file), which Deploy/systemd/ does not ship")
            }
        }

        // Every instance a host can run gets its own valid metrics port.
        let worker = try Deploy.unit("Deploy/systemd/braid-worker@.service")
        let file = Deploy.root.appendingPathComponent("Deploy/config/production.yaml").path
        var ports: Set<Int> = []
        for instance in 1...9 {
            var environment: [String: String] = [:]
            for assignment in worker["Environment", default: []] {
                let parts = assignment.replacingOccurrences(of: "%i", with: String(instance)).split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { environment[parts[0]] = parts[1] }
            }
            environment.merge(try Deploy.environmentFile("Deploy/systemd/braid.env")) { $1 }
            let configuration = try ConfigurationLoader.load(file: file, environment: environment)
            try configuration.validate()
            #expect(configuration.worker.metricsPort != 0 && configuration.worker.metricsPort != configuration.gateway.port)
            ports.insert(configuration.worker.metricsPort)
        }
        #expect(ports.count == 9, "braid-worker@1…9 share a metrics port")
    }
}
