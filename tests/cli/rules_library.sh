#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/rules_library.sh - the rule library (rules/*.rules) and
# '@include <NAME>': the search order of -I directories, name checks,
# clear errors, explain tables per library file, and a compile for each
# target next to a typical writable workspace.
. "${srcdir:-.}/tests/lib/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq not installed"
lib=$top_srcdir/rules
cd "$workdir"

# answers TARGET RULES [vboxc options] - read "QUERY => WANT" lines on
# stdin; WANT is "allow|deny FILE" (FILE: the basename of the deciding
# row's file, or "default").  One TAP line per query.
answers() {
	_t=$1 _r=$2
	shift 2
	sed -n 's/ => .*//p' >"$workdir/q"
	sed -n 's/.* => //p' "$workdir/q.want.in" >"$workdir/want" 2>/dev/null || :
	run "$VBOXC" explain --format=json --target="$_t" "$@" \
		--queries="$workdir/q" "$_r"
	if [ "$rc" -ne 0 ]; then
		not_ok "$_t $_r: explain exits 0 (got $rc)"
		sed 's/^/# /' "$workdir/err"
		return
	fi
	jq -r '(if .allow then "allow" else "deny" end) + " " +
		((.source // "default") | sub(":[0-9]+:[0-9]+$"; "") |
		 sub(".*/"; ""))' "$workdir/out" >"$workdir/got"
	paste -d'|' "$workdir/q" "$workdir/want" "$workdir/got" |
	while IFS='|' read -r _q _w _g; do
		if [ "$_w" = "$_g" ]; then
			printf 'ok - %s: %s => %s\n' "$_t" "$_q" "$_w"
		else
			printf 'not ok - %s: %s => %s (got %s)\n' "$_t" "$_q" \
				"$_w" "$_g"
		fi
	done >"$workdir/tap"
	while IFS= read -r _line; do
		case $_line in
		"ok - "*) ok "${_line#ok - }" ;;
		*) not_ok "${_line#not ok - }" ;;
		esac
	done <"$workdir/tap"
}

# table TARGET RULES [options] <<EOF ... - as answers, with the table
# kept for the wanted column.
table() {
	cat >"$workdir/q.want.in"
	answers "$@" <"$workdir/q.want.in"
}

# ---- the search: -I in order, then the installed directory ------------
mkdir a b
printf 'rw:/srv/a/**\n' >a/pick.rules
printf 'rw:/srv/b/**\n' >b/pick.rules
printf 'rw:/srv/b2/**\n' >b/only-b.rules
printf '@include <pick>\n@include <only-b>\n' >ws.rules
run "$VBOXC" explain -I a -I b --write=/srv/a/x --write=/srv/b/x \
	--write=/srv/b2/x ws.rules
is "$rc" 0 "-I a -I b: explain runs"
is "$(sed -n 1p out)" \
	"write /srv/a/x: allow by row 0 (rw, level 0) at a/pick.rules:1:1" \
	"the first -I directory holding NAME.rules wins"
is "$(sed -n 2p out)" "write /srv/b/x: deny by default (@default write deny)" \
	"a later directory's file of the same name is not read"
is "$(sed -n 3p out)" \
	"write /srv/b2/x: allow by row 1 (rw, level 0) at b/only-b.rules:1:1" \
	"a name found only in the second -I directory"
run "$VBOXC" explain --include-dir=b --include-dir a --write=/srv/b/x ws.rules
is "$(sed -n 1p out)" \
	"write /srv/b/x: allow by row 0 (rw, level 0) at b/pick.rules:1:1" \
	"--include-dir=DIR and the separate form, in order"

# '@include "file"' keeps its meaning: next to the including file.
mkdir sub
printf 'rw:/srv/q/**\n' >sub/pick.rules
printf '@include "pick.rules"\n' >sub/ws.rules
run "$VBOXC" explain -I a --write=/srv/q/x sub/ws.rules
is "$(cat out)" \
	"write /srv/q/x: allow by row 0 (rw, level 0) at sub/pick.rules:1:1" \
	"'@include \"pick.rules\"' is still relative to the including file"

# A library file may include another by name; chains are printed.
printf '@include <inner>\n' >a/outer.rules
printf 'rw:/\n' >a/inner.rules
printf '@include <outer>\n' >chain.rules
run "$VBOXC" check -I a chain.rules
is "$rc" 1 "an error inside a library file fails the check"
is "$(head -n 2 err)" "In file included from a/outer.rules:1:1:
In file included from chain.rules:1:1:" \
	"the include chain names each library file"
check "the error is at the library row" grep -q "^a/inner.rules:1:4: error: " err

# ---- errors: not found, invalid names --------------------------------
printf 'rw:/srv/w/**\n@include   <nope>  # a comment\n' >nf.rules
run "$VBOXC" check -I a -I b nf.rules
is "$rc" 1 "an unknown library name is an error (exit 1)"
sed 1q err >line1
check "the error names the file, line and column of <nope>" \
	grep -q "^nf.rules:2:12: error: rule library '<nope>' not found" line1
check "the error lists every directory searched, in order" \
	grep -q "no 'nope.rules' in 'a', 'b', '/.*/vbox/rules'$" line1
is "$(sed -n 3p err)" "           ^~~~~~" "a caret underlines <nope>"

# A close name in a searched directory is suggested.
printf '@include <secret>\n@include <only_b>\n' >typo.rules
run "$VBOXC" check -I a -I "$lib" -I b typo.rules
check "a misspelt name of the library gets a hint" \
	grep -q "not found: .*; did you mean '<secrets>'?\$" err
check "a misspelt name of an -I directory gets a hint" \
	grep -q "no 'only_b.rules' in .*; did you mean '<only-b>'?\$" err

for bad in '../x' 'a/b' '.hidden' 'x..y' 'sp ace' '/etc/passwd'; do
	printf '@include <%s>\n' "$bad" >bad.rules
	run "$VBOXC" check -I a bad.rules
	check "<$bad> is refused as a library name" \
		grep -q "^bad.rules:1:10: error: invalid rule library name '<$bad>'" err
done
printf '@include <>\n' >empty.rules
run "$VBOXC" check empty.rules
check "<> is an error" \
	grep -q "^empty.rules:1:10: error: empty rule library name" err
run "$VBOXC" check -I '' ws.rules
is "$rc" 2 "an empty -I is a usage error"

# A name that exists as a directory is found (the first hit wins) and
# then fails to read: an unreadable first hit never falls through.
mkdir a/dir.rules
printf 'rw:/srv/dir/**\n' >b/dir.rules
printf '@include <dir>\n' >dir.rules
run "$VBOXC" check -I a -I b dir.rules
check "a NAME.rules that cannot be read is an error, not skipped" \
	grep -q "cannot read 'a/dir.rules'" err

# ---- the shipped library: explain tables -----------------------------
home=/home/me
linux_ws="rw:$home/work/**"
printf '%s\n@include <secrets>\n' "$linux_ws" >ws-secrets.rules
table linux ws-secrets.rules -I "$lib" -D HOME=$home <<EOF
read $home/.ssh/id_ed25519 => deny secrets.rules
write $home/.ssh/authorized_keys => deny secrets.rules
read $home/.gnupg/private-keys-v1.d/x.key => deny secrets.rules
read $home/.aws/credentials => deny secrets.rules
read $home/.config/gcloud/application_default_credentials.json => deny secrets.rules
read $home/.kube/config => deny secrets.rules
read $home/.docker/config.json => deny secrets.rules
read $home/.netrc => deny secrets.rules
read $home/.npmrc => deny secrets.rules
read $home/.pypirc => deny secrets.rules
read $home/.cargo/credentials.toml => deny secrets.rules
read $home/.git-credentials => deny secrets.rules
read $home/.config/gh/hosts.yml => deny secrets.rules
read $home/.password-store/bank.gpg => deny secrets.rules
read $home/.docker/buildx/instances => allow default
read $home/.cargo/registry/cache/x.crate => allow default
read $home/work/src/main.c => allow ws-secrets.rules
write $home/work/src/main.c => allow ws-secrets.rules
write $home/.cache/x => deny default
EOF
table darwin ws-secrets.rules -I "$lib" -D HOME=$home <<EOF
read $home/.SSH/ID_RSA => deny secrets.rules
read $home/.Aws/Credentials => deny secrets.rules
EOF
printf '@include <secrets>\n' >ws-secrets-win.rules
table windows ws-secrets-win.rules -I "$lib" -D 'HOME=C:\Users\me' <<EOF
read C:\\Users\\me\\.ssh\\id_rsa => deny secrets.rules
read C:/Users/ME/.NETRC => deny secrets.rules
read C:\\Users\\me\\Documents\\notes.txt => allow default
EOF

printf '%s\n@include <dotfiles>\n' "$linux_ws" >ws-dotfiles.rules
table linux ws-dotfiles.rules -I "$lib" -D HOME=$home <<EOF
read $home/.bashrc => allow dotfiles.rules
write $home/.bashrc => deny dotfiles.rules
write $home/.profile => deny dotfiles.rules
write $home/.zshrc => deny dotfiles.rules
write $home/.config/fish/config.fish => deny dotfiles.rules
write $home/.vimrc => deny dotfiles.rules
write $home/.config/nvim/init.lua => deny dotfiles.rules
write $home/.emacs.d/init.el => deny dotfiles.rules
write $home/.gitconfig => deny dotfiles.rules
write $home/.config/systemd/user/evil.service => deny dotfiles.rules
write $home/.config/autostart/evil.desktop => deny dotfiles.rules
write $home/.bashrc.d => deny default
write $home/work/.bashrc => allow ws-dotfiles.rules
EOF

# A writable ~/.config does not open the start-up files below it.
printf 'rw:%s/.config/**\n@include <dotfiles>\n' "$home" >ws-dot2.rules
table linux ws-dot2.rules -I "$lib" -D HOME=$home <<EOF
write $home/.config/nvim/init.vim => deny dotfiles.rules
write $home/.config/tool/state => allow ws-dot2.rules
EOF

repo=$home/work/repo
printf '%s\n@include <git-protect>\n' "$linux_ws" >ws-git.rules
table linux ws-git.rules -I "$lib" -D HOME=$home -D VBOX_GIT_REPO=$repo <<EOF
write $repo/.git/hooks/pre-commit => deny git-protect.rules
read $repo/.git/hooks/pre-commit => allow git-protect.rules
write $repo/.git/config => deny git-protect.rules
write $repo/.git/info/attributes => deny git-protect.rules
write $repo/.git/objects/ab/cdef => allow ws-git.rules
write $repo/.git/refs/heads/main => allow ws-git.rules
write $repo/.git/index => allow ws-git.rules
write $repo/src/main.c => allow ws-git.rules
EOF
run "$VBOXC" check -I "$lib" -D HOME=$home ws-git.rules
check "git-protect without VBOX_GIT_REPO is an error" \
	grep -q "undefined variable '\$VBOX_GIT_REPO'" err

printf '@default net deny\n%s\n@include <registries>\n' "$linux_ws" >ws-reg.rules
table linux ws-reg.rules -I "$lib" -D HOME=$home <<EOF
net registry.npmjs.org:443 => allow registries.rules
net pypi.org:443 => allow registries.rules
net files.pythonhosted.org:443 => allow registries.rules
net index.crates.io:443 => allow registries.rules
net static.crates.io:443 => allow registries.rules
net proxy.golang.org:443 => allow registries.rules
net sum.golang.org:443 => allow registries.rules
net github.com:443 => allow registries.rules
net codeload.github.com:443 => allow registries.rules
net objects.githubusercontent.com:443 => allow registries.rules
net github.com:22 => deny default
net pypi.org:80 => deny default
net evil.example.com:443 => deny default
net gist.github.com:443 => deny default
EOF

# ---- every file compiles for every target next to a workspace --------
# linux needs --emit=plan (denied and read-only paths land at launch);
# windows supports only the open network posture.
for f in secrets dotfiles git-protect registries; do
	for t in linux darwin windows; do
		case $t in
		windows)
			h='C:\Users\me'
			ws='@default net open
rw:C:\Users\me\work\**'
			;;
		*)
			h=$home
			ws="@default net deny
$linux_ws"
			;;
		esac
		printf '%s\n@include <%s>\n' "$ws" "$f" >"c-$f-$t.rules"
		case $t in linux) emit=--emit=plan ;; *) emit= ;; esac
		run "$VBOXC" compile --target=$t $emit -o "c-$f-$t.out" \
			-I "$lib" -D "HOME=$h" -D "VBOX_GIT_REPO=$h/work/repo" \
			"c-$f-$t.rules"
		# A note is no warning (darwin's, for proxy rows, is one).
		is "$rc:$(grep -v '^vboxc: note: ' err || :)" "0:" \
			"<$f> compiles for $t next to a workspace, no warning"
	done
done

# All four together, for each target, still warning-free.
for t in linux darwin windows; do
	case $t in
	windows) h='C:\Users\me'; ws='@default net open
rw:C:\Users\me\work\**' ;;
	*) h=$home; ws="$linux_ws" ;;
	esac
	printf '%s\n@include <secrets>\n@include <dotfiles>\n@include <git-protect>\n@include <registries>\n' \
		"$ws" >"all-$t.rules"
	run "$VBOXC" check -Werror --target=$t -I "$lib" -D "HOME=$h" \
		-D "VBOX_GIT_REPO=$h/work/repo" "all-$t.rules"
	is "$rc:$(grep -v '^vboxc: note: ' err || :)" "0:" \
		"all four libraries together: $t, -Werror"
done

# Every library file says what it protects and why.
for f in "$lib"/*.rules; do
	check "$(basename "$f") explains what and why in comments" \
		sh -c 'grep -q "^# What" "$1" && grep -q "^# Why" "$1"' sh "$f"
done

done_testing
