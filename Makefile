# hearthloom-ingest — the two commands for a fresh Debian 12 machine:
#   make run    install packages, build, one pass against the embedded local node, then status
#   make test   install packages, build, run every test
SHELL := /bin/bash
PREFIX ?= $(HOME)/.local
SWIFT ?= $(shell command -v swift || echo /opt/swift/usr/bin/swift)
BIN_DEBUG = .build/debug/hearthloom-ingest
BIN = .build/release/hearthloom-ingest
UNIT_DIR ?= $(HOME)/.config/systemd/user

# Build and library packages, then what the tests run against.
APT_BUILD = pkg-config libstdc++-12-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev libsystemd-dev libical-dev libgps-dev zlib1g-dev
APT_TEST = python3 openssl sqlite3 strace libimage-exiftool-perl imagemagick libheif-examples libavif-bin webp gpsd gpsd-clients procps
# mpris: a private session bus, a scriptable test player, mpv with its MPRIS plugin, a tagged file, a second reader, busctl (systemd) to read player properties.
APT_TEST += dbus python3-dbus python3-gi mpv mpv-mpris ffmpeg playerctl systemd
# location-history: gpsbabel writes and reads KML, TCX and FIT beside the adapter's readers; pip
# fetches the sdists with real files (fixtures/location-history/fetch-real-files.sh).
APT_TEST += gpsbabel python3-pip
# geoclue: the real daemon on a private system bus, in its own namespaces (unshare, mount: util-linux, mount).
APT_TEST += geoclue-2.0 util-linux mount
# focus: dconf-service written by gsettings (GNOME's show-banners), its schema and backend.
APT_TEST += dconf-service dconf-gsettings-backend gsettings-desktop-schemas libglib2.0-bin
# desktop: a real gnome-keyring-daemon (libsecret, secret-tool, gdbus to lock it), man page lint,
# the shells whose completions are checked.
APT_TEST += gnome-keyring libsecret-1-0 libsecret-tools libglib2.0-bin groff mandoc bash-completion zsh fish
APT_BENCH = time hyperfine libxml2-utils
# make soak: a C compiler for its wall-clock shim (tools/soak/wallclock_shift.c).
APT_TEST += gcc
# make deb and its test: Debian's packaging tools and lintian.
APT_TEST += dpkg-dev binutils lintian curl
# scans: libtesseract's C API, poppler-glib and libqpdf (all loaded on first use; libqpdf needs no
# headers), English and German traineddata, and what tools/make-scan-fixtures.sh makes documents
# with; ocrmypdf to compare.
APT_BUILD += libtesseract-dev libleptonica-dev libpoppler-glib-dev
APT_TEST += tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-osd img2pdf fonts-dejavu-core libqpdf29
APT_BENCH += ocrmypdf

# The user's config when there is one, else the repo's demo config (fixtures/demo).
USER_CONFIG := $(or $(HEARTHLOOM_CONFIG_DIR),$(XDG_CONFIG_HOME),$(HOME)/.config)$(if $(HEARTHLOOM_CONFIG_DIR),,/hearthloom)
RUN_CONFIG := $(if $(wildcard $(USER_CONFIG)/node.conf $(USER_CONFIG)/adapters.d),$(USER_CONFIG),$(CURDIR)/fixtures/demo)
RUN_STATE := $(if $(filter $(CURDIR)/fixtures/demo,$(RUN_CONFIG)),$(CURDIR)/.build/demo-state,)

.PHONY: deps build release run test sanitize bench install uninstall clean deb deb-test soak

deps:
	@missing=$$(for p in $(APT_BUILD) $(APT_TEST) $(APT_BENCH); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

# The Swift runtime is linked statically: it saves ~3 ms of loading on every start. So is the C++
# runtime it needs (libstdc++, libgcc): no libstdc++.so.6 or libgcc_s.so.1 to map, relocate and
# initialise, another ~0.5 ms that every `capture` pays. The Swift driver asks for -lstdc++; a
# linker script of that name in STATIC_CXX, searched before GCC's own folder, gives it the archive.
# Libraries loaded later (ICU under libical, Tesseract, qpdf) bring their own libstdc++.so.6: the
# binary exports none of its copy's symbols (the driver's --exclude-libs ALL).
STATIC_CXX = $(CURDIR)/.build/static-cxx
release: deps
	mkdir -p $(STATIC_CXX) && echo "INPUT($$($(dir $(realpath $(SWIFT)))clang -print-file-name=libstdc++.a))" > $(STATIC_CXX)/libstdc++.so
	$(SWIFT) build -c release --static-swift-stdlib -Xswiftc -L$(STATIC_CXX) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc

run: release
	@echo "config: $(RUN_CONFIG)"
	$(BIN) run --config-dir "$(RUN_CONFIG)" $(if $(RUN_STATE),--state-dir "$(RUN_STATE)")
	@echo
	$(BIN) status --config-dir "$(RUN_CONFIG)" $(if $(RUN_STATE),--state-dir "$(RUN_STATE)")

# Unit tests run on the debug build; the integration suite runs against the release binary,
# built exactly as `make install` and `make deb` ship it (what ships is what is tested).
# Ends with one `N passed, N failed` line (Swift Testing's counts, summed over RUN_SUITES' processes).
test: build release
	$(SWIFT) build --build-tests
	python3 -m unittest discover -s tools/testnode -q
	set -o pipefail; HEARTHLOOM_BIN=$(CURDIR)/$(BIN) $(RUN_SUITES) --log .build/test-logs -- \
		$(SWIFT) test --skip-build 2>&1 | tee .build/test.log

# The whole suite (unit and integration) under AddressSanitizer + UndefinedBehaviorSanitizer,
# then the suites whose code runs on several threads (gate, watcher, live adapters, the read-ahead
# and streamed-parse pipelines, the health spool) under ThreadSanitizer, each against its own
# instrumented binary. Debug builds: they build in half the time, and `make test` already runs
# the integration suite against the optimised release binary.
# swiftc has no -sanitize=undefined on Linux; UBSan instruments the C targets (its handlers are
# in the ASan runtime), and Swift code has its own always-on overflow, bounds and exclusivity checks.
UBSAN_C = -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=all
TSAN_SUITES = GateTests|WatchTests|MPRISTests|GPSDTests|GPSDReceiverTests|GeoClueTests|CaptureTests|EmbeddedNodeTests|TrackedFilesTests|RecurrenceTests|CalendarTests|CalendarAdapterTests|PhotosTests|HealthSampleSpoolTests|HealthStreamingTests
sanitize: deps
	$(SWIFT) build --build-tests --scratch-path .build/asan --sanitize=address $(UBSAN_C)
	set -o pipefail; HEARTHLOOM_BIN=$(CURDIR)/.build/asan/debug/hearthloom-ingest $(SAN_ENV) $(RUN_SUITES) --log .build/asan-logs -- \
		$(SWIFT) test --skip-build --scratch-path .build/asan --sanitize=address $(UBSAN_C) 2>&1 | tee .build/asan.log
	@# Leaks: whole passes of the ASan binary over the demo config (the suite runs with leak checks
	@# off, as XCTest's own runner leaks and LeakSanitizer cannot run under the strace tests).
	rm -rf .build/lsan-state; set -e; for args in "run" "run --dry-run" "status --json" "capture leak check"; do \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 .build/asan/debug/hearthloom-ingest $$args \
			--config-dir fixtures/demo --state-dir .build/lsan-state >/dev/null; done; echo "leak check: no leaks"
	$(SWIFT) build --build-tests --scratch-path .build/tsan --sanitize=thread
	set -o pipefail; HEARTHLOOM_BIN=$(CURDIR)/.build/tsan/debug/hearthloom-ingest $(SAN_ENV) $(RUN_SUITES) --log .build/tsan-logs \
		--filter '$(TSAN_SUITES)' -- $(SWIFT) test --skip-build --scratch-path .build/tsan --sanitize=thread 2>&1 | tee .build/tsan.log
# Any report fails the run: UBSan would otherwise only print, and a child's report must fail the test that ran it.
# The sanitizer prints the stack; Swift's own backtracer is off, as it can outlive an aborted child and
# hold the test's pipes open.
SAN_ENV = SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
# Each integration suite, and each module's unit suites together, is one `swift test` process;
# TEST_WORKERS of them run at once (the suites mostly wait on child processes). It ends with one
# `N passed, N failed` line over them all.
TEST_WORKERS ?= 4
RUN_SUITES = python3 tools/run-suites.py --workers $(TEST_WORKERS)

bench: release
	bench/run.sh

# A long run of the release `watch` (tools/soak/soak.py): gpsd at 1 Hz, three mpv players, focus
# toggling, files and captures every minute and seconds, the node restarted every 5 minutes, one
# SIGSTOP and one wall-clock step; ends with one summary and fails naming what broke. CI: 3 minutes.
SOAK_MINUTES ?= 30
soak: release
	python3 tools/soak/soak.py --binary $(CURDIR)/$(BIN) --minutes $(SOAK_MINUTES)

# Completions and the man page are generated by the binary from its command table (and, for the
# man page, README's Configuration and Exit codes sections), so neither can drift from it.
SHARE = $(DESTDIR)$(PREFIX)/share
install: release
	install -Dm755 $(BIN) "$(DESTDIR)$(PREFIX)/bin/hearthloom-ingest"
	$(BIN) completions bash | install -Dm644 /dev/stdin "$(SHARE)/bash-completion/completions/hearthloom-ingest"
	$(BIN) completions zsh | install -Dm644 /dev/stdin "$(SHARE)/zsh/site-functions/_hearthloom-ingest"
	$(BIN) completions fish | install -Dm644 /dev/stdin "$(SHARE)/fish/vendor_completions.d/hearthloom-ingest.fish"
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) $(BIN) --man-page README.md \
		| install -Dm644 /dev/stdin "$(SHARE)/man/man1/hearthloom-ingest.1"
	install -Dm644 README.md "$(DESTDIR)$(PREFIX)/share/doc/hearthloom-ingest/README.md"
	install -d "$(DESTDIR)$(PREFIX)/share/doc/hearthloom-ingest/adapters.d"
	install -m644 adapters.d/*.conf "$(DESTDIR)$(PREFIX)/share/doc/hearthloom-ingest/adapters.d/"
	for u in systemd/*.service systemd/*.timer; do \
		sed "s|%h/.local/bin|$(PREFIX)/bin|" $$u | install -Dm644 /dev/stdin "$(DESTDIR)$(UNIT_DIR)/$$(basename $$u)"; done
	@echo "installed; enable the timer with: systemctl --user daemon-reload && systemctl --user enable --now hearthloom-ingest.timer"

# The Debian package, built with dpkg-deb from the release binary (packaging/deb/make-deb.sh);
# `apt install ./.build/deb/hearthloom-ingest_*.deb` installs it.
deb: release
	bash packaging/deb/make-deb.sh $(BIN) .build/deb

# Installs that package on this machine with apt-get, checks it (lintian, units, doctor, a run to
# the test node) and removes it again: for CI's throwaway machine, or where changing /usr is fine.
deb-test: deb
	bash packaging/deb/test-deb.sh .build/deb/hearthloom-ingest_$$($(BIN) --version | cut -d' ' -f2)_$$(dpkg --print-architecture).deb

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/hearthloom-ingest" $(addprefix "$(DESTDIR)$(UNIT_DIR)/",hearthloom-ingest.service hearthloom-ingest.timer hearthloom-ingest-watch.service)
	rm -f "$(SHARE)/bash-completion/completions/hearthloom-ingest" "$(SHARE)/zsh/site-functions/_hearthloom-ingest" \
		"$(SHARE)/fish/vendor_completions.d/hearthloom-ingest.fish" "$(SHARE)/man/man1/hearthloom-ingest.1"
	rm -rf "$(DESTDIR)$(PREFIX)/share/doc/hearthloom-ingest"

clean:
	rm -rf .build

# The contacts and calendar benchmarks pip-install vobject and recurring-ical-events into bench/.venv.
APT_BENCH += python3-venv

# Fuzzing (issue 12): one libFuzzer binary (ASan + coverage) holding a harness per parser,
# each run FUZZ_SECONDS from its seeds in fuzz/corpus/NAME, FUZZ_JOBS at a time; prints
# `fuzz NAME: N runs, K crashes` per target and fails on any crash. CI: FUZZ_SECONDS=10 (every
# target), half of the targets fuzzed one at a time beside the sanitizer suite and the rest two at
# a time after it (the binary built once, by `make fuzz-build`, which `make fuzz` finds up to date).
# FUZZ_TARGETS: only these (names in fuzz/corpus), not all.
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= 2
FUZZ_TARGETS ?=
.PHONY: fuzz fuzz-build
fuzz-build: deps
	SWIFTC=$(dir $(SWIFT))swiftc fuzz/build.sh
fuzz: fuzz-build
	FUZZ_JOBS=$(FUZZ_JOBS) fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
