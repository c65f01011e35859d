# SPDX-License-Identifier: MIT
# tests/lib/sarif_schema.jq - the SARIF 2.1.0 schema's required members
# and types, as jq (tests/cli/sarif.sh, tests/cli/diff.sh): prints one
# line per violation, nothing for a valid log.  sarifLog: version "2.1.0", runs;
# run: tool.driver with a name; reportingDescriptor: id; result: message
# (text); location.physicalLocation: artifactLocation.uri (a URI
# reference) and region (startLine/startColumn integers >= 1, endColumn
# > startColumn); level one of none|note|warning|error; ruleId names a
# rule and ruleIndex is its position.
def err(m): "violation: " + m;
def region_ok:
  (.startLine | type == "number" and . >= 1 and . == floor) and
  (.startColumn | type == "number" and . >= 1 and . == floor) and
  ((.endColumn // (.startColumn + 1)) > .startColumn);
def loc_errs(where):
  if (.physicalLocation | type) != "object" then err(where + ": no physicalLocation")
  elif (.physicalLocation.artifactLocation.uri | type) != "string" then err(where + ": no artifactLocation.uri")
  elif (.physicalLocation.artifactLocation.uri | test("^[A-Za-z0-9._~/%:-]+$") | not) then err(where + ": uri is not a URI reference")
  elif (.physicalLocation.region | region_ok | not) then err(where + ": bad region")
  else empty end;
(if .version != "2.1.0" then err("version") else empty end),
(if (."$schema" | type) != "string" or (."$schema" | test("sarif-schema-2\\.1\\.0\\.json$") | not) then err("$schema") else empty end),
(if (.runs | type) != "array" or (.runs | length) != 1 then err("runs: exactly one run") else empty end),
(.runs[0] as $run |
 ($run.tool.driver.rules // []) as $rules |
 (if $run.tool.driver.name != "vboxc" then err("tool.driver.name") else empty end),
 ($rules[] | if (.id | type) != "string" then err("rule without id") else empty end),
 (if ($rules | map(.id) | unique | length) != ($rules | length) then err("duplicate rule ids") else empty end),
 (if ($run.results | type) != "array" then err("results") else empty end),
 ($run.results | to_entries[] | .key as $i | .value |
  (if (.message.text | type) != "string" or .message.text == "" then err("result \($i): message.text") else empty end),
  (if (.level | IN("none", "note", "warning", "error") | not) then err("result \($i): level") else empty end),
  (if (.ruleId | type) != "string" then err("result \($i): ruleId") else empty end),
  (if .ruleIndex != null and $rules[.ruleIndex].id != .ruleId then err("result \($i): ruleIndex") else empty end),
  ((.locations // [])[] | loc_errs("result \($i)")),
  ((.relatedLocations // [])[] | loc_errs("result \($i) related"))))
