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
        // libsystemd and libcrypto are dlopen'd on first use too (see their shim.h): not linked.
        .systemLibrary(name: "CSystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // libgps is dlopen'd on first use too, by the gpsd adapter only.
        .systemLibrary(name: "CGPS", providers: [.apt(["libgps-dev"])]),
        // libical (and the ICU it pulls in) is dlopen'd on first use too (see its shim.h): not linked.
        .systemLibrary(name: "CICal", providers: [.apt(["libical-dev"])]),
        .target(
            name: "IngestCore",
            dependencies: ["CSQLite", "CCurl", "CSystemd", "CCrypto"]
        ),
        // One folder per adapter; each ships its sample config, embedded so `adapters` and the
        // example in adapters.d/ cannot disagree (a test checks the copy).
        .target(
            name: "Adapters",
            dependencies: ["IngestCore", "CGPS", "CICal", "CZlib"],
            exclude: ["Photos/README.md", "GPSD/README.md", "Contacts/README.md", "Calendar/README.md", "MPRIS/README.md", "Health/README.md"],
            resources: [
                .embedInCode("Photos/photos.conf"),
                .embedInCode("GPSD/gpsd.conf"),
                .embedInCode("Contacts/contacts.conf"),
                .embedInCode("Calendar/calendar.conf"),
                .embedInCode("MPRIS/mpris.conf"),
                .embedInCode("Health/health.conf"),
            ]
        ),
        .executableTarget(
            name: "hearthloom-ingest",
            dependencies: ["IngestCore", "Adapters"]
        ),
        .testTarget(
            name: "IngestCoreTests",
            dependencies: ["IngestCore"]
        ),
        .testTarget(
            name: "AdaptersTests",
            dependencies: ["Adapters", "IngestCore"]
        ),
        .testTarget(
            name: "Integration",
            dependencies: ["IngestCore"],
            path: "Tests/Integration"
        ),
    ]
)
