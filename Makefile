# The front door. Every target bootstraps what a fresh machine lacks (Deploy/local/bootstrap.sh).
.PHONY: run test browser fuzz bench faults dist dist-check bootstrap build clean

ONLY ?= all

## Run the whole system locally on its embedded defaults (Ctrl-C stops it).
run:
	@Deploy/local/run.sh

## Run every test: unit and integration, against an ephemeral Redis and Kafka broker.
test:
	@Deploy/local/test.sh $(ARGS)

## The console in headless Chromium against a real gateway, worker, Redis and broker; screenshots in .run/console/.
browser:
	@Deploy/local/browser.sh

## Fuzz the gateway with schemathesis against Schemas/openapi.yaml: no 5xx, every response conforms (FUZZ_EXAMPLES per operation, 50).
fuzz:
	@Deploy/local/fuzz.sh

## Benchmarks: RATIO lines against baselines measured in the same run (ONLY=<group>).
bench:
	@Deploy/local/bench.sh $(ONLY)

## Fault injection on loopback (broker frozen, worker killed, Redis restarted, hostile messages); ONLY=<scenario>.
faults:
	@Deploy/local/faults.sh $(ONLY)

## Release tarball .build/dist/braid-<VERSION>-linux-<arch>.tar.gz: static Swift runtime, librdkafka and hiredis next to the binary, config, schemas, systemd units.
dist:
	@Deploy/local/dist.sh

## Prove the tarball on a bare debootstrapped Debian (root): only the runtime packages, worker + gateway serve an interleaved page.
dist-check: dist
	@Deploy/local/dist-check.sh

bootstrap:
	@Deploy/local/bootstrap.sh

build: bootstrap
	swift build

clean:
	rm -rf .build .run
