// swift-tools-version:6.0
import PackageDescription

// Every C dependency is a Debian package, wrapped as a system-library target and
// imported by exactly one Swift module (see STYLE.md §1–2).
let package = Package(
    name: "hearthloom-ingest",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hearthloom-ingest", targets: ["hearthloom-ingest"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libcurl is dlopen'd on first use (see its shim.h), so it is not linked: no pkgConfig here.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "IngestCore",
            dependencies: ["CSQLite", "CCurl", "CSystemd", "CCrypto"]
        ),
        .executableTarget(
            name: "hearthloom-ingest",
            dependencies: ["IngestCore"]
        ),
        .testTarget(
            name: "IngestCoreTests",
            dependencies: ["IngestCore"]
        ),
        .testTarget(
            name: "Integration",
            dependencies: ["IngestCore"],
            path: "Tests/Integration"
        ),
    ]
)
