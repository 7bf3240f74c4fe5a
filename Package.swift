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
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Loaded on first use (dlopen), so not linked: libcurl (libcurl4-openssl-dev), libsystemd
        // (libsystemd-dev: CSystemd for the agent's notify and machine id, CSDBus for the bus adapters),
        // libcrypto (libssl-dev), libgps (libgps-dev), libical (libical-dev),
        // libtesseract with leptonica (libtesseract-dev), poppler-glib (libpoppler-glib-dev), libqpdf
        // (libqpdf29) and libsecret (libsecret-1-0; neither needs headers).
        // Each is a C target, not a header-only module: its function table and the pthread_once
        // that fills it must have one definition, in its .c file.
        .target(name: "CCurl"),
        .target(name: "CSystemd"),
        .target(name: "CSDBus"),
        .target(name: "CCrypto"),
        .target(name: "CGPS"),
        .target(name: "CICal"),
        .target(name: "CSecret"),
        .target(name: "CTesseract"),
        .target(name: "CPoppler"),
        // CQPDF inflates a PDF image's Flate stream itself, with zlib.
        .target(name: "CQPDF", linkerSettings: [.linkedLibrary("z")]),
        .target(
            name: "IngestCore",
            dependencies: ["CSQLite", "CCurl", "CSystemd", "CCrypto", "CSecret"]
        ),
        // One folder per adapter; each ships its sample config, embedded so `adapters` and the
        // example in adapters.d/ cannot disagree (a test checks the copy).
        .target(
            name: "Adapters",
            dependencies: ["IngestCore", "CSDBus", "CGPS", "CICal", "CZlib", "CTesseract", "CPoppler", "CQPDF"],
            exclude: ["Photos/README.md", "GPSD/README.md", "Places/README.md", "GeoClue/README.md", "Contacts/README.md", "Calendar/README.md", "MPRIS/README.md", "Health/README.md", "LocationHistory/README.md", "Focus/README.md", "Scans/README.md", "ListeningHistory/README.md"],
            resources: [
                .embedInCode("Photos/photos.conf"),
                .embedInCode("GPSD/gpsd.conf"),
                .embedInCode("Contacts/contacts.conf"),
                .embedInCode("Calendar/calendar.conf"),
                .embedInCode("MPRIS/mpris.conf"),
                .embedInCode("Focus/focus.conf"),
                .embedInCode("Health/health.conf"),
                .embedInCode("GeoClue/geoclue.conf"),
                .embedInCode("LocationHistory/location-history.conf"),
                .embedInCode("Scans/scans.conf"),
                .embedInCode("ListeningHistory/listening-history.conf"),
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
