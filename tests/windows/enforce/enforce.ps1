# SPDX-License-Identifier: MIT
# tests/windows/enforce/enforce.ps1 - what vbox-exec.exe enforces, on a
# real windows machine, as a standard user (setup.ps1 makes the user and
# the directories, then runs this).  TAP on stdout.  Every case is a
# line "Case 'NAME' { ... }": tests/windows/enforce.sh lists them as
# skipped ("needs real Windows") where they cannot run.
#
# These never run under wine: wine ignores restricting SIDs and keeps no
# file DACL.  The plans are compiled on linux from the .rules files next
# to this script (.github/workflows/windows.yml).
param(
	[Parameter(Mandatory = $true)] [string] $Bin,
	[Parameter(Mandatory = $true)] [string] $Plans
)
$ErrorActionPreference = 'Continue'
$script:n = 0
$script:failed = 0
$exe = Join-Path $Bin 'vbox-exec.exe'
$probe = Join-Path $Bin 'winprobe.exe'
$state = 'C:\vbx\state'

function Case([string] $name, [scriptblock] $body) {
	$script:n++
	$good = $false
	try { $good = [bool](& $body) } catch { "# $($_.Exception.Message)" }
	if ($good) { "ok $script:n - $name" }
	else { $script:failed++; "not ok $script:n - $name" }
}

# Vx PLAN ARGS... - run vbox-exec.exe; .rc, .out (stdout and stderr).
function Vx([string] $plan) {
	$a = @("--state-dir=$state", (Join-Path $Plans "$plan.plan"), '--') +
		$args
	$out = & $exe @a 2>&1 | Out-String
	[pscustomobject]@{ rc = $LASTEXITCODE; out = $out }
}

# The capability SIDs in PATH's DACL.
function CapAces([string] $path) {
	(Get-Acl -LiteralPath $path).Access |
		Where-Object { $_.IdentityReference.Value -like 'S-1-15-3-*' }
}

Case 'the child runs under a restricted token' {
	(Vx base $probe token).out -match 'restricted yes'
}
Case 'a denied file cannot be read' {
	$r = Vx base cmd /c type C:\vbx\work\secret\key.txt
	$r.rc -ne 0 -and $r.out -notmatch 'TOPSECRET'
}
Case 'a denied directory cannot be written' {
	Vx base cmd /c 'echo x> C:\vbx\work\secret\new.txt' | Out-Null
	-not (Test-Path C:\vbx\work\secret\new.txt)
}
Case 'a read-only hole inside a writable root is read, not written' {
	$r = Vx base cmd /c type C:\vbx\work\docs\readme.txt
	Vx base cmd /c 'echo x> C:\vbx\work\docs\new.txt' | Out-Null
	$r.out -match 'README' -and -not (Test-Path C:\vbx\work\docs\new.txt)
}
Case 'the writable root is written' {
	(Vx base cmd /c 'echo x> C:\vbx\work\made.txt').rc -eq 0 -and
		(Test-Path C:\vbx\work\made.txt)
}
Case 'outside the roots nothing is written (low integrity)' {
	Vx base cmd /c 'echo x> C:\vbx\outside\x.txt' | Out-Null
	-not (Test-Path C:\vbx\outside\x.txt)
}
Case 'a protected entry cannot be renamed away (pins)' {
	Vx base cmd /c move C:\vbx\work\secret C:\vbx\work\moved | Out-Null
	(Test-Path C:\vbx\work\secret) -and -not (Test-Path C:\vbx\work\moved)
}
Case 'the child cannot rewrite a hole''s DACL (OWNER RIGHTS)' {
	Vx base icacls C:\vbx\work\docs /grant "$($env:USERNAME):(OI)(CI)F" |
		Out-Null
	Vx base cmd /c 'echo x> C:\vbx\work\docs\after.txt' | Out-Null
	-not (Test-Path C:\vbx\work\docs\after.txt)
}
Case 'a writable root the user cannot grant is downgraded, with the warning' {
	$r = Vx base cmd /c 'echo x> C:\vbx\adminroot\x.txt'
	$r.out -match 'write-root unavailable in sandbox' -and
		-not (Test-Path C:\vbx\adminroot\x.txt)
}
Case 'a deny that cannot be applied is refused, never downgraded (125)' {
	(Vx admindeny cmd /c exit 0).rc -eq 125
}
Case 'a junction on a denied path is refused (125)' {
	$r = Vx junction cmd /c exit 0
	$r.rc -eq 125 -and $r.out -match 'reparse point'
}
Case 'the ACEs are revoked when the command ends' {
	Vx base cmd /c exit 0 | Out-Null
	-not (CapAces C:\vbx\work\secret) -and -not (CapAces C:\vbx\work)
}
Case 'a launcher killed with TerminateProcess is repaired by the next run' {
	$a = @("--state-dir=$state", (Join-Path $Plans 'base.plan'), '--',
		$probe, 'sleep', '120')
	$p = Start-Process $exe -ArgumentList $a -PassThru -NoNewWindow
	$i = 0
	while (-not (CapAces C:\vbx\work\secret) -and $i -lt 100) {
		Start-Sleep -Milliseconds 100; $i++
	}
	$applied = [bool](CapAces C:\vbx\work\secret)
	Stop-Process -Id $p.Id -Force
	$p.WaitForExit()
	Start-Sleep -Milliseconds 500
	$left = [bool](CapAces C:\vbx\work\secret)
	$child = Get-Process winprobe -ErrorAction SilentlyContinue
	Vx other cmd /c exit 0 | Out-Null
	$applied -and $left -and -not $child -and
		-not (CapAces C:\vbx\work\secret) -and
		-not (Select-String -Path "$state\deny_acl_state.json" `
			-Pattern '"holder"' -Quiet)
}
Case 'two launchers at once leave a whole, empty state' {
	$a = @("--state-dir=$state", (Join-Path $Plans 'base.plan'), '--',
		'cmd', '/c', 'exit', '0')
	$p1 = Start-Process $exe -ArgumentList $a -PassThru -NoNewWindow
	$p2 = Start-Process $exe -ArgumentList $a -PassThru -NoNewWindow
	$p1.WaitForExit(); $p2.WaitForExit()
	$p1.ExitCode -eq 0 -and $p2.ExitCode -eq 0 -and
		(Get-Content "$state\deny_acl_state.json" -Raw) -match
		'"records": \[\]'
}
Case 'cmd, PowerShell and python still start' {
	$c = Vx base cmd /c echo hi
	$ps = Vx base powershell -NoProfile -Command 'Write-Output psok'
	$py = Get-Command python -ErrorAction SilentlyContinue
	$pyok = $true
	if ($py) { $pyok = (Vx base $py.Source -c 'print(42)').out -match '42' }
	$c.out -match 'hi' -and $ps.out -match 'psok' -and $pyok
}
Case 'a root past MAX_PATH is carried out through \\?\ paths' {
	(Vx long cmd /c exit 0).rc -eq 0
}
Case '@default write rw: a medium token writes outside the holes only' {
	Vx writerw cmd /c 'echo x> C:\vbx\outside\rw.txt' | Out-Null
	Vx writerw cmd /c 'echo x> C:\vbx\work\secret\rw.txt' | Out-Null
	(Test-Path C:\vbx\outside\rw.txt) -and
		-not (Test-Path C:\vbx\work\secret\rw.txt)
}
Case 'a denied file deleted through its parent survives (issue 35)' {
	# The user's full control of C:\vbx\work\secret gives FILE_DELETE_CHILD:
	# the pin on the parent denies it.
	$r = Vx fdc cmd /c 'del /f /q C:\vbx\work\secret\key.txt & echo x> C:\vbx\work\secret\key.txt'
	$r.rc -ne 125 -and (Get-Content -Raw C:\vbx\work\secret\key.txt) -match 'TOPSECRET'
}
Case 'a denied file renamed away through its parent survives (issue 35)' {
	$r = Vx fdc cmd /c 'ren C:\vbx\work\secret\key.txt moved.txt & echo x> C:\vbx\work\secret\key.txt'
	$r.rc -ne 125 -and -not (Test-Path C:\vbx\work\secret\moved.txt) -and
		(Get-Content -Raw C:\vbx\work\secret\key.txt) -match 'TOPSECRET'
}
Case 'an ro directory deleted and made again through its parent (issue 35)' {
	$r = Vx fdc cmd /c 'rd /s /q C:\vbx\work\docs & mkdir C:\vbx\work\docs & echo x> C:\vbx\work\docs\new.txt'
	$r.rc -ne 125 -and (Test-Path C:\vbx\work\docs\readme.txt) -and
		-not (Test-Path C:\vbx\work\docs\new.txt)
}
Case 'an ro directory renamed away and made again (issue 35)' {
	$r = Vx fdc cmd /c 'move C:\vbx\work\docs C:\vbx\work\docs2 & mkdir C:\vbx\work\docs & echo x> C:\vbx\work\docs\new.txt'
	$r.rc -ne 125 -and (Test-Path C:\vbx\work\docs\readme.txt) -and
		-not (Test-Path C:\vbx\work\docs2) -and
		-not (Test-Path C:\vbx\work\docs\new.txt)
}
Case 'a missing deny right below C:\ cannot be made (placeholder, issue 35)' {
	$r = Vx driveroot cmd /c 'mkdir C:\vbxhole & echo x> C:\vbxhole\x.txt'
	$r.rc -ne 125 -and -not (Test-Path C:\vbxhole\x.txt) -and
		-not (Test-Path C:\vbxhole)
}
Case 'a deny row on a file: the file cannot be read (not refused as a directory)' {
	$r = Vx filerow cmd /c type C:\vbx\work\secret.txt
	$r.rc -ne 125 -and $r.out -notmatch 'FILESECRET'
}
Case 'a deny row on a file: the file cannot be overwritten' {
	$r = Vx filerow cmd /c 'echo x> C:\vbx\work\secret.txt'
	$r.rc -ne 125 -and
		(Get-Content -Raw C:\vbx\work\secret.txt) -match 'FILESECRET'
}
Case 'a read-only hole on a file: read, not written; the root stays writable' {
	$r = Vx filerow cmd /c type C:\vbx\work\notes.txt
	Vx filerow cmd /c 'echo x> C:\vbx\work\notes.txt' | Out-Null
	$w = Vx filerow cmd /c 'echo x> C:\vbx\work\filerow.txt'
	$r.rc -eq 0 -and $r.out -match 'NOTES' -and
		(Get-Content -Raw C:\vbx\work\notes.txt) -match 'NOTES' -and
		$w.rc -eq 0 -and (Test-Path C:\vbx\work\filerow.txt)
}
Case 'low integrity: no delete through a parent the user fully controls' {
	# The agreement test's model has no-write-up strip FILE_DELETE_CHILD
	# (MS-DTYP 2.5.3.3); the plan pins nothing outside the writable
	# roots under @default write deny, so this holds only if windows
	# does the same.
	Vx base cmd /c 'del /f /q C:\vbx\fullctl\keep.txt' | Out-Null
	Vx base cmd /c 'ren C:\vbx\fullctl\keep.txt gone.txt' | Out-Null
	(Test-Path C:\vbx\fullctl\keep.txt) -and
		-not (Test-Path C:\vbx\fullctl\gone.txt)
}

"1..$script:n"
if ($script:failed -ne 0) { exit 1 }
exit 0
