# SPDX-License-Identifier: MIT
# tests/cli/explain_plan_gen.py - queries and random tables for
# tests/cli/explain_plan.sh (python3, standard library only).
#
#   explain_plan_gen.py queries IR.json      queries near every row of an
#                                            --emit=ir table, on stdout
#   explain_plan_gen.py random SEED TARGET DIR N
#                                            N random rule files
#                                            DIR/rand_K.rules with a
#                                            DIR/rand_K.queries each
import json
import random
import sys

SEGS = ["a", "b", "srv", "x.y", "Work", "tmp"]
HOSTS = ["example.com", "a.example.com", "b.a.example.com", "localhost",
         "127.0.0.1", "10.0.0.1", "[::1]", "github.com"]


def concrete(pattern, rnd):
    """A path the pattern names, its wildcards filled in."""
    out = []
    for seg in pattern.split("/"):
        if seg == "**":
            out.extend(rnd.choice([[], ["a"], ["a", "b"]]))
        else:
            out.append(seg.replace("*", rnd.choice(["", "q"]))
                       .replace("?", "z"))
    return "/".join(out) or "/"


def fs_queries(pattern, rnd):
    p = concrete(pattern, rnd)
    if not p.startswith("/"):
        p = "/" + p
    base = p.rstrip("/") or "/"
    for q in (p, base + "/sub", base + "/sub/deep", base + "x",
              base.rsplit("/", 1)[0] or "/", base.upper()):
        yield "read " + q
        yield "write " + q


def net_queries(text, rnd):
    host, _, port = text.rpartition(":")
    host = host.replace("*.", "w.")
    for p in (port if port != "*" else "443", "80", "*"):
        yield "net %s:%s" % (host, p) if p != "*" else "net " + host
    yield "net sub.%s:443" % host if not host.startswith("[") else \
        "net %s:22" % host


def queries(ir_path):
    rnd = random.Random(7)
    with open(ir_path) as f:
        ir = json.load(f)
    out = []
    for row in ir.get("fs", []):
        out.extend(fs_queries(row["target"], rnd))
    for row in ir.get("net", []):
        out.extend(net_queries(row["target"], rnd))
    out.extend(["read /", "write /etc/passwd", "net nowhere.example:1"])
    print("\n".join(out))


def rand_pattern(rnd, windows):
    segs = []
    for _ in range(rnd.randint(1, 4)):
        # windows ACLs name concrete paths: no wildcards there
        r = 1 if windows else rnd.random()
        if r < 0.15:
            segs.append("**")
        elif r < 0.3:
            segs.append(rnd.choice(SEGS)[:1] + "*")
        elif r < 0.35:
            segs.append("?" + rnd.choice(SEGS))
        else:
            segs.append(rnd.choice(SEGS))
    if all(s == "**" or "*" in s or "?" in s for s in segs):
        segs.insert(0, "srv")
    root = "C:/" if windows else "/"
    if windows and rnd.random() < 0.3:
        root = "D:\\"
        return root + "\\".join(segs)
    return root + "/".join(segs)


def rand_table(rnd, target):
    windows = target == "windows"
    lines = ["@default write %s" % rnd.choice(["deny", "rw"])]
    lines.append("@default net %s" % ("open" if windows else "deny"))
    for _ in range(rnd.randint(1, 25)):
        level = "!" * rnd.choice([0, 0, 0, 1, 2])
        if rnd.random() < 0.75:
            eff = rnd.choice(["deny", "ro", "rw", "rw"])
            lines.append("%s%s: %s" % (level, eff, rand_pattern(rnd,
                                                                 windows)))
        else:
            host = rnd.choice(HOSTS + ["*.example.com"])
            port = rnd.choice(["", ":443", ":80", ":*"])
            eff = "allow" if windows else rnd.choice(["allow", "allow",
                                                      "deny"])
            if host.startswith("*.") and eff == "deny":
                eff = "allow"
            lines.append("%s%s: %s%s" % (level, eff, host, port))
    qs = []
    for _ in range(60):
        if windows:
            p = "C:/" + "/".join(rnd.choice(SEGS + ["q", "aq"])
                                 for _ in range(rnd.randint(0, 5)))
        else:
            p = "/" + "/".join(rnd.choice(SEGS + ["q", "aq", "zsrv"])
                               for _ in range(rnd.randint(0, 5)))
        qs.append(rnd.choice(["read ", "write "]) + p)
        qs.append("net %s:%s" % (rnd.choice(HOSTS).replace(
                "*.", "x."), rnd.choice(["443", "80", "22"])))
    return "\n".join(lines) + "\n", "\n".join(qs) + "\n"


def main():
    if sys.argv[1] == "queries":
        queries(sys.argv[2])
        return
    seed, target, d, n = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    rnd = random.Random("%s-%s" % (seed, target))
    for k in range(int(n)):
        rules, qs = rand_table(rnd, target)
        with open("%s/rand_%d.rules" % (d, k), "w") as f:
            f.write(rules)
        with open("%s/rand_%d.queries" % (d, k), "w") as f:
            f.write(qs)


main()
