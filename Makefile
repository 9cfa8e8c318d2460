# The front door. Every target bootstraps what a fresh machine lacks for it, and no more
# (Deploy/local/bootstrap.sh GROUP...), and then runs braid-local (make run) or braid-dev (the
# rest), which start, wait for and stop every server and service they need (Sources/BraidHarness).
.PHONY: run test test-fast examples docs browser fuzz attack bench faults dist dist-check image image-check build clean

ONLY ?= all
# make run: gateways behind HAProxy on the gateway port when more than 1.
GATEWAYS ?= 1
BOOTSTRAP = Deploy/local/bootstrap.sh
RELEASE_BIN = .build/release
# The two executables only: a plain `swift build -c release` would also optimise the BraidClient
# library, which no target here needs. Without debug info, as `make dist` builds: nothing here reads it.
RELEASE_BUILD = swift build -c release -debug-info-format none --product braid && swift build -c release -debug-info-format none --product braid-dev
DEBUG_BIN = .build/debug
# Debug builds without debug info: a fifth less build time on 2 cores (BENCHMARKS.md, build), and
# nothing here runs a debugger. Every debug build below uses the same flags, so they share one build.
DEBUG_BUILD = swift build -debug-info-format none

## Run the whole system locally on its embedded defaults (Ctrl-C stops it, exit status 0); GATEWAYS=3: three gateways behind HAProxy. Debug binaries: they
## build in a fraction of the release build's time and share it with make test (docs/getting-started.md says how fast they serve).
run:
	@$(BOOTSTRAP) run $(if $(filter-out 1,$(GATEWAYS)),fleet)
	@$(DEBUG_BUILD) --product braid && $(DEBUG_BUILD) --product braid-local
	@BRAID_GATEWAYS=$(GATEWAYS) $(DEBUG_BIN)/braid-local

## Run every test: the generated client matches Schemas/openapi.yaml; the fast tier and the integration tier (which starts its own servers), then examples, browser, fuzz and attack.
test:
	@$(BOOTSTRAP) test
	@$(DEBUG_BUILD) --build-tests
	@Deploy/local/client-generate.sh --check
	@$(DEBUG_BIN)/braid-dev test $(ARGS)

## The fast tier alone: pure and protocol logic, no server, in parallel.
test-fast:
	@$(BOOTSTRAP) run tools
	@$(DEBUG_BUILD) --build-tests
	@BRAID_TEST_TIER=fast swift test --skip-build $(ARGS)

## The client examples: Schemas/asyncapi.yaml validates, and the Python producer's messages match it and are materialized and served by a real worker and gateway.
examples:
	@$(BOOTSTRAP) run tools
	@$(DEBUG_BUILD)
	@$(DEBUG_BIN)/braid-dev examples

## The shell commands of README.md and docs/, run against a stack started as make run starts it (DOCS=<file> for one guide).
docs:
	@$(BOOTSTRAP) run tools
	@$(DEBUG_BUILD)
	@$(DEBUG_BIN)/braid-dev docs

## The console in headless Chromium against a real gateway, worker, Redis and broker; screenshots in .run/console/.
browser:
	@$(BOOTSTRAP) run tools browser
	@$(DEBUG_BUILD)
	@$(DEBUG_BIN)/braid-dev browser

## Fuzz the gateway with schemathesis against Schemas/openapi.yaml: no 5xx, every response conforms (FUZZ_EXAMPLES per operation, 50).
fuzz:
	@$(BOOTSTRAP) run tools
	@$(DEBUG_BUILD)
	@$(DEBUG_BIN)/braid-dev fuzz

## Attack a gateway and worker in their production configuration on loopback: ATTACK <name> PASS|FAIL lines (ONLY=<name>).
attack:
	@$(BOOTSTRAP) run
	@$(DEBUG_BUILD)
	@ONLY=$(ONLY) $(DEBUG_BIN)/braid-dev attack

## Benchmarks (Benchmarks/): RATIO lines against baselines measured in the same run (ONLY=<group>).
bench:
	@$(BOOTSTRAP) bench
	@$(RELEASE_BUILD)
	@$(RELEASE_BIN)/braid-dev bench $(ONLY)

## Fault injection: FAULT lines and a verdict per scenario (broker frozen, worker killed, Redis restarted, hostile messages, rolling restart, component refresh, Redis full, cluster resharded, cluster primary killed; as root, on hosts of their own: partitions, a blackholed primary, clock skew); ONLY=<scenario>, BRAID=<binary>; ONLY=rolling-upgrade PREVIOUS=<the previous release's braid>.
faults:
	@$(BOOTSTRAP) faults
	@$(RELEASE_BUILD)
	@$(RELEASE_BIN)/braid-dev faults $(ONLY)

## Release tarball .build/dist/braid-<VERSION>-linux-<arch>.tar.gz: static Swift runtime, librdkafka and hiredis next to the binary, config, schemas, systemd units.
dist:
	@Deploy/local/dist.sh

## Prove the tarball on a bare debootstrapped Debian (root): only the runtime packages, worker + gateway serve an interleaved page.
dist-check: dist
	@Deploy/local/dist-check.sh

## The container image, built with buildah from the tarball on a local bare-Debian base (root): localhost/braid:<VERSION>.
image:
	@$(BOOTSTRAP) image
	@Deploy/local/image.sh

## Run the image with podman: version, health check, a worker and a gateway serving a page (root).
image-check: image
	@$(DEBUG_BUILD) --product braid-dev
	@$(DEBUG_BIN)/braid-dev image-check

## Build everything make test runs (debug, tests included) without running it.
build:
	@$(BOOTSTRAP) run
	@$(DEBUG_BUILD) --build-tests

clean:
	rm -rf .build .run
