#compdef vkstat
# zsh completion for vkstat: vkstat completion zsh > "${fpath[1]}/_vkstat"
_vkstat() {
	local -a cands
	local cur=${words[CURRENT]}
	local -a prev=("${(@)words[2,CURRENT-1]}")
	if [[ $cur == -* ]]; then
		cands=("${(@f)$(${words[1]} "${prev[@]}" "$cur" --generate-bash-completion 2>/dev/null)}")
	else
		cands=("${(@f)$(${words[1]} "${prev[@]}" --generate-bash-completion 2>/dev/null)}")
	fi
	if [[ -n ${cands[1]} ]]; then
		compadd -a cands
	else
		_files
	fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_vkstat "$@"
else
	compdef _vkstat vkstat
fi
