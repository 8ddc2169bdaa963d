"""``gradguard server`` end to end: a real LSP client (pytest-lsp) drives the server as a
subprocess over stdio, the way an editor does."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pygls.exceptions import JsonRpcMethodNotFound  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

BAD = "import torch\n\nwith torch.no_grad:\n    y = 1\n"
GOOD = "import torch\n\nwith torch.no_grad():\n    y = 1\n"
DOCS = "https://github.com/gradguard/gradguard/blob/main/docs/rules.md#"

CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        code_action=types.CodeActionClientCapabilities(
            code_action_literal_support=types.ClientCodeActionLiteralOptions(
                code_action_kind=types.ClientCodeActionKindOptions(value_set=list(types.CodeActionKind))
            )
        ),
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
    ),
    notebook_document=types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()
    ),
    workspace=types.WorkspaceClientCapabilities(
        workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
    ),
)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "gradguard", "server"]),
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    (root / "pyproject.toml").write_text("[tool.gradguard]\n")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=CAPABILITIES,
            root_uri=root.as_uri(),
            initialization_options={"debounce_ms": 10},
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def diagnostics_for(client: LanguageClient, uri: str, timeout: float = 30) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri`` (each publication is taken once)."""

    async def wait() -> list[types.Diagnostic]:
        while uri not in client.diagnostics:
            await asyncio.sleep(0.005)
        return list(client.diagnostics.pop(uri))

    return await asyncio.wait_for(wait(), timeout)


def open_file(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions; ASCII text here) the way a client does."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(pos: types.Position) -> int:
        return starts[min(pos.line, len(lines))] + pos.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def edits_for(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.document_changes is not None
    return [e for change in action.edit.document_changes if change.text_document.uri == uri for e in change.edits]


async def code_actions(client: LanguageClient, uri: str, line: int, only=None) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio
async def test_open_shows_diagnostics_with_code_range_severity_and_docs_link(client):
    uri = open_file(client, client.root / "train.py", BAD)
    (diagnostic,) = await diagnostics_for(client, uri)
    assert diagnostic.code == "GG204"
    assert diagnostic.source == "gradguard"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.code_description.href == DOCS + "gg204"
    assert diagnostic.range == types.Range(
        start=types.Position(line=2, character=5), end=types.Position(line=2, character=18)
    )
    assert diagnostic.message.startswith("`torch.no_grad` is used without `()`")


@pytest.mark.asyncio
async def test_quick_fix_then_edit_then_save(client):
    path = client.root / "train.py"
    path.write_text(BAD)
    uri = open_file(client, path, BAD)
    await diagnostics_for(client, uri)

    actions = await code_actions(client, uri, line=2)
    titles = [a.title for a in actions]
    fix = next(a for a in actions if a.title.startswith("GG204: "))
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred and "(unsafe)" not in fix.title
    assert "Disable GG204 for this line" in titles
    assert apply_text_edits(BAD, edits_for(fix, uri)) == GOOD

    # The client applies the fix as an edit: the finding goes away.
    (edit,) = edits_for(fix, uri)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)],
        )
    )
    assert await diagnostics_for(client, uri) == []

    # Typing the bug back in brings it back.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=BAD)],
        )
    )
    (again,) = await diagnostics_for(client, uri)
    assert again.code == "GG204"

    # Saving checks again (the file on disk now holds the buffer).
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    (saved,) = await diagnostics_for(client, uri)
    assert saved.code == "GG204"
    # The result went into the cache `gradguard check` uses, beside the pyproject.toml.
    assert list((client.root / ".gradguard_cache").glob("*/*.json"))


@pytest.mark.asyncio
async def test_a_buffer_taking_torch_from_a_star_import_follows_the_file_it_imports(client):
    # models.py never imports torch: `from layers import *` gives it. Opening it checks it and
    # stores the result; once layers.py stops importing torch, reopening the unchanged file
    # must not be served the stored findings.
    models_text = (
        "from layers import *\n\ndef init(conv, na):\n    b = conv.bias.view(na, -1)\n    b.data[:, 4] += -4.5\n"
    )
    (client.root / "layers.py").write_text("import torch\n")
    path = client.root / "models.py"
    path.write_text(models_text)
    uri = open_file(client, path, models_text)
    assert [d.code for d in await diagnostics_for(client, uri)] == ["GG102"]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await diagnostics_for(client, uri) == []
    (client.root / "layers.py").write_text("import numpy\n")
    open_file(client, path, models_text, version=2)
    assert await diagnostics_for(client, uri) == []


@pytest.mark.asyncio
async def test_disable_for_this_line_adds_noqa(client):
    uri = open_file(client, client.root / "train.py", BAD)
    await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, line=2)
    disable = next(a for a in actions if a.title == "Disable GG204 for this line")
    fixed = apply_text_edits(BAD, edits_for(disable, uri))
    assert fixed == BAD.replace("no_grad:", "no_grad:  # noqa: GG204")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert await diagnostics_for(client, uri) == []


@pytest.mark.asyncio
async def test_fix_all_applies_safe_fixes_only(client):
    text = (
        "import torch\n\nmodel = torch.nn.Linear(2, 2)\n"
        "with torch.no_grad:\n    y = 1\n"
        "with torch.enable_grad:\n    z = 2\n"
        "w = model.weight.data\n"
    )
    uri = open_file(client, client.root / "train.py", text)
    before = await diagnostics_for(client, uri)
    assert {d.code for d in before} >= {"GG204", "GG101"}
    # Each rule's severity: GG204 always raises (error), GG101 is a legacy API (warning).
    severities = {d.code: d.severity for d in before}
    assert severities["GG204"] == types.DiagnosticSeverity.Error
    assert severities["GG101"] == types.DiagnosticSeverity.Warning
    actions = await code_actions(client, uri, line=0, only=[types.CodeActionKind.SourceFixAll])
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.gradguard"
    fixed = apply_text_edits(text, edits_for(fix_all, uri))
    assert "with torch.no_grad():" in fixed and "with torch.enable_grad():" in fixed
    assert "model.weight.data" in fixed  # GG101's fix is unsafe: not part of fix all
    # Only the quick fixes when asked for quick fixes.
    quick = await code_actions(client, uri, line=7, only=[types.CodeActionKind.QuickFix])
    assert quick and all(a.kind == types.CodeActionKind.QuickFix for a in quick)
    assert any(a.title.startswith("GG101: ") and a.title.endswith("(unsafe)") for a in quick)


@pytest.mark.asyncio
async def test_configuration_of_the_nearest_pyproject(client):
    inner = client.root / "legacy"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[tool.gradguard]\nignore = ["GG204"]\n')
    ignored = open_file(client, inner / "old.py", BAD)
    assert await diagnostics_for(client, ignored) == []
    checked = open_file(client, client.root / "new.py", BAD)
    assert [d.code for d in await diagnostics_for(client, checked)] == ["GG204"]


@pytest.mark.asyncio
async def test_a_changed_pyproject_applies_to_open_documents(client):
    uri = open_file(client, client.root / "train.py", BAD)
    assert [d.code for d in await diagnostics_for(client, uri)] == ["GG204"]
    pyproject = client.root / "pyproject.toml"
    pyproject.write_text('[tool.gradguard]\nignore = ["GG204"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    assert await diagnostics_for(client, uri) == []


@pytest.mark.asyncio
async def test_a_file_that_does_not_parse_is_a_diagnostic_and_the_server_lives_on(client):
    # On disk the line is different: the column comes from the buffer that was parsed.
    (client.root / "broken.py").write_text("import torch\nx = 1 1\n")
    uri = open_file(client, client.root / "broken.py", "import torch\nééé = 1 1\n")
    (diagnostic,) = await diagnostics_for(client, uri)
    assert diagnostic.code == "GG001" and "SyntaxError" in diagnostic.message
    assert diagnostic.range.start == types.Position(line=1, character=8)
    other = open_file(client, client.root / "train.py", BAD)
    assert [d.code for d in await diagnostics_for(client, other)] == ["GG204"]


@pytest.mark.asyncio
async def test_malformed_requests_get_errors_and_the_server_lives_on(client):
    # A code action for a document the server never saw: no actions, no crash.
    unknown = (client.root / "never_opened.py").as_uri()
    assert await code_actions(client, unknown, line=0) == []
    # Raw bytes an editor with a bug might send: parameters of the wrong shape, text that is
    # not JSON, a notification for a document never opened.
    stdin = client._server.stdin  # type: ignore[union-attr]
    for body in (
        b'{"jsonrpc": "2.0", "id": 9001, "method": "textDocument/codeAction", "params": {"textDocument": 42}}',
        b"{not json",
        b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "file:///nope.py",'
        b' "version": 2}, "contentChanges": [{"text": "x"}]}}',
    ):
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    await stdin.drain()
    # A method the server does not know.
    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("gradguard/noSuchMethod", {})
    uri = open_file(client, client.root / "train.py", BAD)
    assert [d.code for d in await diagnostics_for(client, uri)] == ["GG204"]


@pytest.mark.asyncio
async def test_notebook_cells_checked_as_one_program_with_diagnostics_per_cell(client):
    notebook_uri = (client.root / "analysis.ipynb").as_uri()
    cells = [
        ("import torch\nmodel = torch.nn.Linear(2, 2)\n", types.NotebookCellKind.Code),
        ("# Evaluation", types.NotebookCellKind.Markup),
        ("with torch.no_grad:\n    y = model(x)\n", types.NotebookCellKind.Code),
    ]
    cell_uris = [f"vscode-notebook-cell:{notebook_uri[len('file:') :]}#cell{i}" for i in range(len(cells))]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=kind, document=u) for (_, kind), u in zip(cells, cell_uris)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=u,
                    language_id="python" if kind == types.NotebookCellKind.Code else "markdown",
                    version=1,
                    text=t,
                )
                for (t, kind), u in zip(cells, cell_uris)
                if kind == types.NotebookCellKind.Code
            ],
        )
    )
    received = {uri: await diagnostics_for(client, uri) for uri in (cell_uris[0], cell_uris[2])}
    assert received[cell_uris[0]] == []
    (diagnostic,) = received[cell_uris[2]]
    # The name `torch` comes from the first cell; the position is within the third cell.
    assert diagnostic.code == "GG204"
    assert diagnostic.range.start == types.Position(line=0, character=5)

    actions = await code_actions(client, cell_uris[2], line=0, only=[types.CodeActionKind.QuickFix])
    fix = next(a for a in actions if a.title.startswith("GG204: "))
    assert apply_text_edits(cells[2][0], edits_for(fix, cell_uris[2])).startswith("with torch.no_grad():")

    # Editing a cell checks the notebook again.
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(uri=cell_uris[2], version=2),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(
                                    text="with torch.no_grad():\n    y = model(x)\n"
                                )
                            ],
                        )
                    ]
                )
            ),
        )
    )
    assert await diagnostics_for(client, cell_uris[2]) == []


def lsp_message(payload) -> bytes:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_responses(output: bytes) -> list[dict]:
    messages = []
    while output:
        header, _, rest = output.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        messages.append(json.loads(rest[:length]))
        output = rest[length:]
    return messages


def test_unreadable_requests_are_answered_with_errors_over_raw_stdio(tmp_path):
    """Bytes a buggy editor might send, straight onto the server's standard input: a request
    with parameters of the wrong shape gets an InvalidParams error (the client is not left
    waiting), text that is not JSON and a change to a document never opened are logged, and
    the next requests are answered."""
    target = tmp_path / "train.py"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        b'{"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {"textDocument": 42}}',
        b"{not json",
        b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": '
        b'{"uri": "file:///nowhere.py", "version": 2}, "contentChanges": [{"text": "x"}]}}',
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": target.as_uri(), "languageId": "python", "version": 1, "text": BAD}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "gradguard", "server"],
        input=b"".join(lsp_message(m) for m in messages),
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0
    replies = lsp_responses(proc.stdout)
    by_id = {m["id"]: m for m in replies if "id" in m}
    assert by_id[2]["error"]["code"] == -32602  # InvalidParams
    assert "result" in by_id[3]  # shutdown answered: the server lived through all of it
    published = [m["params"] for m in replies if m.get("method") == "textDocument/publishDiagnostics"]
    assert [d["code"] for p in published if p["uri"] == target.as_uri() for d in p["diagnostics"]] == ["GG204"]
    logged = [m["params"]["message"] for m in replies if m.get("method") == "window/logMessage"]
    assert len(logged) >= 2  # the text that is not JSON, the change to an unknown document
    assert not [m for m in replies if m.get("method") == "window/showMessage"]


def test_server_without_the_extra_is_a_one_line_error():
    probe = "import sys; sys.modules['pygls'] = None; from gradguard.cli import main; sys.exit(main(['server']))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("gradguard: error: server needs pygls and lsprotocol (pip install 'gradguard[lsp]')")
