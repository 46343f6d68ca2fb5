# bash completion for vkstat: source <(vkstat completion bash)
_vkstat() {
	local cur=${COMP_WORDS[COMP_CWORD]} words
	local prev=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
	if [[ $cur == -* ]]; then
		words=$("${COMP_WORDS[0]}" "${prev[@]}" "$cur" --generate-bash-completion 2>/dev/null)
	else
		words=$("${COMP_WORDS[0]}" "${prev[@]}" --generate-bash-completion 2>/dev/null)
	fi
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o bashdefault -o default -F _vkstat vkstat
