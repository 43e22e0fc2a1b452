import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// nginx + nchan as a foreground child with its own prefix, config, pid file and a free port: a publisher
/// location (HTTP POST) and an EventSource subscriber location on one channel. Never the system service.
final class NchanServer {
    struct Installation {
        var nginx: String
        var module: String
    }

    static let modulePaths = ["/usr/lib/nginx/modules/ngx_nchan_module.so", "/usr/share/nginx/modules/ngx_nchan_module.so"]

    static func find() -> Installation? {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let module = modulePaths.first { FileManager.default.fileExists(atPath: $0) }
        guard let nginx, let module else { return nil }
        return Installation(nginx: nginx, module: module)
    }

    static func locate(install: Bool) throws -> Installation {
        if let found = find() { return found }
        guard install else {
            throw BenchError(
                "nginx with the nchan module is not installed; install it with `sudo apt-get install -y nginx libnginx-mod-nchan` "
                    + "or run with --install")
        }
        var command = ["apt-get", "install", "-y", "nginx", "libnginx-mod-nchan"]
        if geteuid() != 0 { command.insert("sudo", at: 0) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let found = find() else {
            throw BenchError("`\(command.joined(separator: " "))` failed (status \(process.terminationStatus))")
        }
        return found
    }

    let installation: Installation
    let directory: String
    let port: Int
    let child: Child

    init(nginx installation: Installation, directory: String) throws {
        self.installation = installation
        self.directory = directory
        port = try freePort()
        for sub in ["", "/logs", "/tmp"] {
            try FileManager.default.createDirectory(atPath: directory + sub, withIntermediateDirectories: true)
        }
        let user = geteuid() == 0 ? "user root root;\n" : ""
        let config = """
            load_module \(installation.module);
            \(user)daemon off;
            master_process on;
            worker_processes auto;
            worker_rlimit_nofile 20000;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log warn;
            events { worker_connections 16384; }
            http {
                access_log off;
                client_body_temp_path \(directory)/tmp/body;
                proxy_temp_path \(directory)/tmp/proxy;
                fastcgi_temp_path \(directory)/tmp/fastcgi;
                uwsgi_temp_path \(directory)/tmp/uwsgi;
                scgi_temp_path \(directory)/tmp/scgi;
                keepalive_requests 1000000;
                server {
                    listen 127.0.0.1:\(port);
                    location = /pub {
                        nchan_publisher http;
                        nchan_channel_id bench;
                        nchan_message_buffer_length 64;
                        nchan_message_timeout 30s;
                    }
                    location = /sub {
                        nchan_subscriber eventsource;
                        nchan_channel_id bench;
                        nchan_subscriber_first_message newest;
                    }
                }
            }

            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        child = Child(
            name: "nginx", executable: installation.nginx,
            arguments: ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/logs/error.log"]
        )
    }

    func start() throws {
        try child.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? BlockingHTTP(port: port)) != nil { return }
            if !child.process.isRunning {
                let log = (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? ""
                throw BenchError("nginx exited (status \(child.process.terminationStatus)): \(child.log) \(log.suffix(2000))")
            }
            usleep(20_000)
        }
        throw BenchError("nginx did not listen on 127.0.0.1:\(port) within 10 s")
    }
}
