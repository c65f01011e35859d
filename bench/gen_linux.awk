# gen_linux.awk - deterministic workspace tables for the linux compile
# benchmark (bench/linux.sh).
#
#   awk -v rows=N -f gen_linux.awk > table.rules
#
# The table is what generated and merged policies look like at scale: one
# block of ten rows per workspace, repeated until N rows are written.
# Each block holds a writable workspace root with read-only and denied
# holes above it, a read-only tree and a denied glob outside every
# writable region, a denied home directory subtree, and two network rows.
# Every file row lands in the kernel, at launch or is absorbed, so the
# whole table compiles for linux with --emit=plan.  The same N gives the
# same bytes with any POSIX awk.

function row(w, k) {
	if (k == 0)
		return "!deny:/srv/ws" w "/.env"
	if (k == 1)
		return "!ro:/srv/ws" w "/.git/hooks"
	if (k == 2)
		return "ro:/srv/ws" w "/vendor/**"
	if (k == 3)
		return "deny:/srv/ws" w "/secrets"
	if (k == 4)
		return "rw:/srv/ws" w "/**"
	if (k == 5)
		return "ro:/opt/sdk" w "/**"
	if (k == 6)
		return "deny:/var/lib/app" w "/*.key"
	if (k == 7)
		return "deny:/home/u" w "/.ssh/**"
	if (k == 8)
		return "allow:api" w ".example.com:443"
	return "deny:tracker" w ".example.net"
}

BEGIN {
	rows += 0
	if (rows < 1) {
		print "gen_linux.awk: rows=N (N >= 1) is required" > "/dev/stderr"
		exit 2
	}
	print "# generated: gen_linux.awk rows=" rows
	print "@default write deny"
	print "@default net deny"
	print ""
	for (i = 0; i < rows; i++)
		print row(int(i / 10), i % 10)
	exit 0
}
