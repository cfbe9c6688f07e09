"""Training and export of rt4chart's shipped models, separate from the runtime package ``rt4chart`` (which never
imports this one). Each module runs from the repository root::

    python3 -m training.train_local_judge [--semantic]   # the local judge's tree ensembles -> ONNX
    python3 -m training.train_local_tagger --stage ...   # its MiniLM token tagger (prepare/train/oof/export)
    python3 -m training.device_tagger pack|run|unpack    # the tagger's GPU stages in one device call
    python3 -m training.fit_default_gate                 # the RAGScope-E gate

``--help`` lists each one's options. Caches default to ``.cache/...`` in the current directory, and the models are
written into the installed package's models folder (``rt4chart.judges.local.model_dir()``, the repository's
``src/rt4chart/judges/models`` with an editable install) unless ``--out-dir`` says otherwise. Modules: ``splits``
(the claim label and the context-grouped folds every stage shares), ``local_judge_rows`` and ``local_judge_onnx``
(the training rows, validation metrics and ONNX export of ``train_local_judge``), ``tagger_data``, ``tagger_model`` and
``tagger_export`` (the tagger's encodings, model and export, run by ``train_local_tagger``), ``tagger_graph`` (the
tagger's ONNX rewrites and quantization), and ``experiments`` (measurements that choose or
check a setting; they train nothing). Training needs scikit-learn and onnx (the ``dev`` extra); the tagger's
``train`` and ``oof`` stages need torch and transformers too.
"""
