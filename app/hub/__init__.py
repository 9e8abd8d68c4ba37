"""Finding and fetching models from Hugging Face and ModelScope.

``repo_files`` groups a repository's files into what a person chooses between;
``huggingface`` and ``modelscope`` talk to the hubs through their official clients;
``app.hub.downloads`` fetches, resumes and verifies the files.
"""
