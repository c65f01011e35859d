#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/sarif.sh - "vboxc check --format=sarif": a SARIF 2.1.0 log whose
# required members (per the SARIF 2.1.0 JSON schema) are present and well
# typed, whose results are the same findings as --format=json, and whose
# bytes are deterministic.
. "${srcdir:-.}/tests/lib/lib.sh"

command -v jq >/dev/null 2>&1 || skip_all "jq not installed"
cd "$workdir"

# The schema's required members and types: tests/lib/sarif_schema.jq.
cp "$srcdir/tests/lib/sarif_schema.jq" schema.jq

# valid LOG DESC - the SARIF log in file LOG satisfies schema.jq.
valid() {
	if ! jq -e . "$1" >/dev/null 2>&1; then
		not_ok "$2: not JSON"
		return
	fi
	jq -r -f schema.jq "$1" >violations
	if [ -s violations ]; then
		not_ok "$2"
		sed 's/^/# /' violations
	else
		ok "$2"
	fi
}

# Shadowed rows of both kinds, both domains, a tab before a row (SARIF
# columns count code points: the tab is one), and an include.
printf 'rw:/srv/work/**\n\tro:/srv/work/vendor\n' >inc.rules
printf '@include "inc.rules"\n!rw:/srv/x/**\n!rw:/srv/x/y\n[net]\nallow:*.example.com\ndeny:evil.example.com:443\n' \
	>shadow.rules
run "$VBOXC" check --format=sarif shadow.rules
is "$rc" 0 "warnings alone: exit status 0"
cp out shadow.sarif
valid shadow.sarif "findings: the log has every required member"
is "$(cat err)" "" "nothing on stderr"
is "$(jq -r '.runs[0].results | map(.ruleId + " " + .level) | join(",")' shadow.sarif)" \
	"ineffective warning,dead warning,dead warning" \
	"one result per finding: ruleId is the kind, level warning"
"$VBOXC" check --format=json shadow.rules >shadow.json
is "$(jq -c '[.runs[0].results[] | [.ruleId, .properties.domain, .properties.row, .properties.by]]' shadow.sarif)" \
	"$(jq -c '[.warnings[] | [.kind, .domain, .row, .by]]' shadow.json)" \
	"the results are the findings of --format=json, in order"
is "$(jq -c '[.runs[0].results[] | .message.text]' shadow.sarif)" \
	"$(jq -c '[.warnings[] | .message]' shadow.json)" \
	"messages are those of --format=json"
is "$(jq -c '.runs[0].results[0].locations[0].physicalLocation' shadow.sarif)" \
	'{"artifactLocation":{"uri":"inc.rules"},"region":{"startLine":2,"startColumn":2,"endColumn":21}}' \
	"location: the included file, line 2, the code-point column after the tab"
is "$(jq -c '.runs[0].results[0].relatedLocations[0] | [.physicalLocation.region.startLine, .message.text]' shadow.sarif)" \
	'[1,"row 0 is here"]' "the covering row is a related location"
is "$(jq -r '.runs[0].tool.driver.rules | map(.id + ":" + .defaultConfiguration.level) | join(" ")' shadow.sarif)" \
	"ineffective:warning dead:warning error:error" \
	"driver.rules: the known kinds with their levels"
is "$(jq -r '.runs[0].columnKind' shadow.sarif)" "unicodeCodePoints" \
	"columnKind says how columns count"

# Errors: ruleId "error", level error, exit status 1; the note that
# follows an error becomes a related location.
printf '@default write deny\n@default write rw\nrw:/\nallow:*.com\n' >bad.rules
run "$VBOXC" check --format=sarif bad.rules
is "$rc" 1 "invalid rules: exit status 1"
cp out bad.sarif
valid bad.sarif "errors: the log has every required member"
"$VBOXC" check --format=json bad.rules >bad.json || :
is "$(jq '[.runs[0].results[] | select(.ruleId == "error" and .level == "error")] | length' bad.sarif)" \
	"$(jq '.errors | length' bad.json)" "one error result per error of --format=json"
is "$(jq -c '[.runs[0].results[] | .locations[0].physicalLocation.region.startLine]' bad.sarif)" \
	"$(jq -c '[.errors[] | .source | split(":")[1] | tonumber]' bad.json)" \
	"error results carry the lines of the errors"

# -Werror: warnings stay warnings in the log; the exit status is 1.
run "$VBOXC" check -Werror --format=sarif shadow.rules
is "$rc" 1 "-Werror with warnings: exit status 1"
cmp -s out shadow.sarif && ok "-Werror prints the same log" ||
	not_ok "-Werror prints the same log"

# A clean table: an empty results array, still a valid log.
printf 'rw:/srv/work/**\n' >clean.rules
run "$VBOXC" check --format=sarif clean.rules
cp out clean.sarif
valid clean.sarif "no finding: a valid log"
is "$(jq -c '.runs[0].results' clean.sarif)" "[]" "no finding: no result"

# Names that are no plain URI: absolute paths become file:// URIs,
# other bytes are %-encoded; standard input too.
mkdir "sp ace"
printf 'rw:/a/**\nro:/a/b\n' >"sp ace/r#1.rules"
run "$VBOXC" check --format=sarif "$workdir/sp ace/r#1.rules"
cp out abs.sarif
valid abs.sarif "absolute path with a blank and '#': a valid log"
is "$(jq -r '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri' abs.sarif)" \
	"file://$workdir/sp%20ace/r%231.rules" "an absolute path is a file:// URI"
run sh -c "printf 'rw:/a/**\nro:/a/b\n' | '$VBOXC' check --format=sarif -"
cp out stdin.sarif
valid stdin.sarif "standard input: a valid log"

# Deterministic: twice, and under another locale and time zone.
"$VBOXC" check --format=sarif shadow.rules >again.sarif
LC_ALL=C.UTF-8 TZ=Asia/Tokyo "$VBOXC" check --format=sarif shadow.rules \
	>again2.sarif
check "the same bytes on a second run" cmp -s shadow.sarif again.sarif
check "the same bytes under another locale and time zone" \
	cmp -s shadow.sarif again2.sarif

# sarif is check's format only.
run "$VBOXC" explain --format=sarif --read=/x clean.rules
is "$rc" 2 "explain --format=sarif is a usage error"
check "the message lists explain's formats" \
	grep -q "unknown format 'sarif' (expected text|json)" err
run "$VBOXC" check --format=xml clean.rules
check "check names its three formats" \
	grep -q "unknown format 'xml' (expected text|json|sarif)" err

done_testing
