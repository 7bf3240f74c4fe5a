#!/usr/bin/env python3
"""Makes fixtures/upgrade/schema-N: a state directory as the last agent of state schema N left it.

usage: make-fixture.py --schema N --commit REV --binary PATH [--out DIR]

BINARY is the agent built from REV (tools/upgrade-fixtures/build-all.sh builds each one). The
script plays a user's life with that agent, against the project's test node:

1. the demo config of REV (its fixtures/demo, as `make run` used it) paired with a node, and a
   `run` that sends everything, plus one capture sent at once;
2. the node goes away; a new contact is added (where REV reads contacts) and two captures are
   made; a `run` queues all of it in the outbox.

It keeps the config (without the token) and the state dir, and writes expected.json: the keys
the node got (which today's agent must never send again) and the keys left queued (which it must
send, once). Anchors hold absolute paths, so the agent always ran under ROOT below, and the test
puts the fixture back at the same place.
"""
import argparse, json, os, shutil, signal, sqlite3, subprocess, sys, tarfile, io, time, urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = "/tmp/hearthloom-upgrade/schema-{}"
TOKEN = "upgrade-fixture-token"


def sh(*args, env=None, check=True):
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        sys.exit(f"make-fixture: {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
    return r


def demo_config(commit, root):
    """REV's fixtures/demo becomes ROOT/config: its adapters.d and the data they point at."""
    tar = subprocess.run(["git", "-C", REPO, "archive", commit, "fixtures/demo"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(root + "/unpacked")
    shutil.move(root + "/unpacked/fixtures/demo", root + "/config")
    shutil.rmtree(root + "/unpacked")
    for name in os.listdir(root + "/config"):            # the demo's scripts and notes: no adapter reads them
        if name.endswith((".sh", ".md")):
            os.remove(root + "/config/" + name)


class Node:
    def __init__(self, root):
        port_file = root + "/node-port"
        self.proc = subprocess.Popen([sys.executable, REPO + "/tools/testnode/testnode.py", "--port", "0",
                                      "--port-file", port_file, "--token", TOKEN], stdout=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(port_file):
                self.url = "http://127.0.0.1:" + open(port_file).read().strip()
                os.remove(port_file)
                return
            time.sleep(0.05)
        sys.exit("make-fixture: the test node did not start")

    def keys(self):
        with urllib.request.urlopen(self.url + "/_admin/items") as reply:
            items = json.load(reply)["items"]
        return sorted({f"{i['endpoint']} {i['key']}" for i in items})

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait()


def new_contact(config):
    """A vCard the first run never saw, beside the demo's own, when REV has contacts."""
    folders = [d for d, _, files in os.walk(config + "/contacts") if any(f.endswith(".vcf") for f in files)]
    if not folders:
        return False
    with open(folders[0] + "/upgrade-new.vcf", "w") as f:
        f.write("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:upgrade-new-contact\r\nFN:Added While Offline\r\n"
                "N:Offline;Added;;;\r\nEMAIL:offline@example.org\r\nEND:VCARD\r\n")
    return True


def queued_keys(state):
    db = sqlite3.connect(f"file:{state}/state.db?mode=ro", uri=True)
    columns = [row[1] for row in db.execute("PRAGMA table_info(outbox)")]
    query = ("SELECT endpoint, key FROM outbox" if "endpoint" in columns      # no lanes table yet
             else "SELECT lanes.endpoint, outbox.key FROM outbox JOIN lanes ON lanes.id = outbox.lane")
    rows = db.execute(query).fetchall()
    db.close()
    return sorted({f"{e} {k}" for e, k in rows})


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--schema", type=int, required=True)
    p.add_argument("--commit", required=True)
    p.add_argument("--binary", required=True)
    p.add_argument("--out")
    a = p.parse_args()
    root = ROOT.format(a.schema)
    out = a.out or f"{REPO}/fixtures/upgrade/schema-{a.schema}"
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    demo_config(a.commit, root)
    config, state = root + "/config", root + "/state"
    env = dict(os.environ, HEARTHLOOM_CONFIG_DIR=config, HEARTHLOOM_STATE_DIR=state, TZ="Europe/Zurich")
    with open(config + "/token", "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(config + "/token", 0o600)

    node = Node(root)
    with open(config + "/node.conf", "w") as f:
        f.write(f"[Node]\nURL={node.url}\n")
    sh(a.binary, "run", env=env)
    sh(a.binary, "capture", "sent before the upgrade", env=env)
    sent = node.keys()
    node.stop()

    added = new_contact(config)
    sh(a.binary, "capture", "queued before the upgrade, 1", env=env)
    sh(a.binary, "capture", "queued before the upgrade, 2", env=env)
    sh(a.binary, "run", env=env, check=False)         # the node is away: everything new stays queued
    queued = queued_keys(state)
    if not queued or (added and not any(k.startswith("contacts ") for k in queued)):
        sys.exit(f"make-fixture: expected the new contact and captures queued, found {queued}")
    version = sh(a.binary, "--version", env=env).stdout.strip()
    status = json.loads(sh(a.binary, "status", "--json", env=env).stdout)

    os.remove(config + "/token")
    os.remove(config + "/node.conf")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(config, out + "/config", symlinks=True)
    shutil.copytree(state, out + "/state", symlinks=True, ignore=shutil.ignore_patterns("*.lock", "*-shm"))
    # git keeps no modification times: the test puts these back, so the tree is the one the old agent saw.
    mtimes = {os.path.relpath(os.path.join(d, f), config): os.stat(os.path.join(d, f)).st_mtime_ns
              for d, _, files in os.walk(config) for f in files}
    expected = {"schema": a.schema, "commit": sh("git", "-C", REPO, "rev-parse", a.commit).stdout.strip(),
                "agent": version, "root": root, "sent": sent, "queued": queued,
                "mtimes": mtimes,
                "adapters": {ad["name"]: {"synced_count": ad["synced_count"], "last_synced": ad["last_synced"]}
                             for ad in status["adapters"]}}
    with open(out + "/expected.json", "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"schema {a.schema} ({version} at {a.commit}): {len(sent)} sent, {len(queued)} queued -> {out}")


if __name__ == "__main__":
    main()
