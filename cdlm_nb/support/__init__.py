"""What the method code runs on but is not the method: saving files atomically with manifests (`artefacts`), where
things live (`paths`), silent-when-headless progress bars (`progress`), peak memory (`memory`), the training precision
(`precision`), the processes of a multi-process job (`processes`), and errors that say what to do (`errors`,
`hub_errors`). It imports nothing of the rest of the package (`tests/test_package_layout.py`)."""
