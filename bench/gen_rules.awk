# gen_rules.awk - deterministic rule tables and query files for benchmarks.
#
#   awk -v rows=N [-v seed=S] -f gen_rules.awk                 > table.rules
#   awk -v rows=N -v queries=Q [-v seed=S] -f gen_rules.awk    > table.queries
#
# The same arguments give the same bytes with any POSIX awk (mawk, gawk,
# busybox): randomness comes from L'Ecuyer's combined generator (1988),
# whose products stay below 2^53 so double arithmetic is exact, not from
# awk's rand().  A single small-multiplier LCG is not enough: consecutive
# draws are so correlated that a row's project would fix its template.
#
# A table is a realistic mix: about 80 % file rows (deny/ro/rw, levels 0-2,
# '*', '?', '**', quoted targets) over projects that share prefixes, so that
# some rows are shadowed (ineffective ro under an earlier rw, duplicates),
# and about 20 % network rows (names, '*.' wildcards, IPv4, IPv6, loopback,
# ports).  A query file asks read/write/net questions about the same name
# space, some matching rows and some falling through to the defaults.

function rnd(    z) {
	s1 = (s1 * 40014) % 2147483563
	s2 = (s2 * 40692) % 2147483399
	z = s1 - s2
	if (z < 1)
		z += 2147483562
	return z / 2147483563
}

function pick(n) {
	return int(rnd() * n)
}

function fs_row(    n, t) {
	n = pick(nproj)
	t = pick(20)
	if (t < 2)
		return "rw:/srv/p" n "/src/**"
	if (t < 4)
		return "rw:/srv/p" n "/w" pick(100) "/**"
	if (t < 6)
		return "ro:/srv/p" n "/docs/d" pick(100)
	if (t < 8)
		return "deny:/srv/p" n "/secrets/k" pick(10)
	if (t < 9)
		return "!deny:/srv/p" n "/.git/hooks"
	if (t < 10)
		return "ro:/srv/p" n "/build/*.o"
	if (t < 11)
		return "rw:/tmp/job" n
	if (t < 12)
		return "!!ro:/etc/app/p" n ".conf"
	if (t < 13)
		return "deny:/var/lib/p" n "/db?.sqlite"
	if (t < 14)
		return "rw:\"/srv/p" n "/my files/**\""
	if (t < 15)
		# Ineffective when rw:/srv/pN/src/** came earlier at level 0.
		return "ro:/srv/p" n "/src/vendor"
	if (t < 16)
		return "ro:/srv/p" n "/w" pick(100) "/vendor/**"
	if (t < 17)
		return "deny:/home/u" n "/.ssh/**"
	if (t < 18)
		return "rw:/srv/p" n "/out/*/cache/**"
	if (t < 19)
		return "!ro:/srv/p" n "/src/include   # headers are read-only"
	return "deny:/srv/p" n "/src/**/*.key"
}

function net_row(    n, t) {
	n = pick(nproj)
	t = pick(10)
	if (t < 3)
		return "allow:api" n ".example.com:443"
	if (t < 5)
		return "allow:*.cdn" n ".example.net:443"
	if (t < 6)
		return "deny:tracker" n ".example.net"
	if (t < 7)
		# Dead when allow:*.cdnN.example.net came earlier.
		return "deny:evil.cdn" n ".example.net:443"
	if (t < 8)
		return "allow:10." int(n / 65536) % 256 "." int(n / 256) % 256 \
		    "." n % 256 ":8080"
	if (t < 9)
		return sprintf("allow:[2001:db8::%x]:443", n % 65536)
	return "!allow:localhost:" (1024 + n % 60000)
}

function query(    n, t, p) {
	n = pick(nproj)
	t = pick(20)
	if (t < 8) {
		p = pick(4)
		if (p == 0)
			return "read /srv/p" n "/src/m" pick(10) "/f.c"
		if (p == 1)
			return "read /srv/p" n "/secrets/k" pick(10)
		if (p == 2)
			return "read /etc/app/p" n ".conf"
		return "read /srv/p" n "/build/x" pick(10) ".o"
	}
	if (t < 14) {
		p = pick(4)
		if (p == 0)
			return "write /srv/p" n "/src/vendor/f" pick(10) ".c"
		if (p == 1)
			return "write /tmp/job" n "/out.log"
		if (p == 2)
			return "write /srv/p" n "/out/" pick(10) "/cache/x"
		return "write /home/u" n "/.ssh/id_rsa"
	}
	p = pick(5)
	if (p == 0)
		return "net api" n ".example.com:443"
	if (p == 1)
		return "net img.cdn" n ".example.net:443"
	if (p == 2)
		return "net tracker" n ".example.net:80"
	if (p == 3)
		return "net 10." int(n / 65536) % 256 "." int(n / 256) % 256 \
		    "." n % 256 ":8080"
	return "net localhost:" (1024 + n % 60000)
}

BEGIN {
	rows += 0
	queries += 0
	if (seed == "")
		seed = 20240601
	s1 = seed % 2147483562 + 1
	s2 = (seed * 31 + 12345) % 2147483398 + 1
	for (i = 0; i < 8; i++)
		rnd()
	if (rows < 1) {
		print "gen_rules.awk: rows=N (N >= 1) is required" > "/dev/stderr"
		exit 2
	}
	# About two rows per project: enough sharing for some shadowing
	# (about 4 % of the rows) without making much of the table dead.
	nproj = int(rows / 2)
	if (nproj < 4)
		nproj = 4

	if (queries > 0) {
		print "# generated: gen_rules.awk rows=" rows " queries=" \
		    queries " seed=" seed
		for (i = 0; i < queries; i++)
			print query()
		exit 0
	}

	print "# generated: gen_rules.awk rows=" rows " seed=" seed
	print "@default write deny"
	print "@default net deny"
	print ""
	for (i = 0; i < rows; i++) {
		if (pick(5) == 0)
			print net_row()
		else
			print fs_row()
	}
	exit 0
}
